import { assembleSubgraph, DependencyUnavailable, startJobThread, type JobThread, type SubgraphDefinition, type SubgraphRuntime } from '@svc/platform';
import { IdentityService } from './identity-service.js';
import { fhirPatientLinker, PATIENT_IDENTITY_REQUESTED } from './fhir-patient-link.js';
import { migrations } from './migrations/index.js';
import { buildIdentitySchema } from './schema/index.js';
import type { RegistryTraining, Trainer } from './training.js';
import type { TrainingThreadData } from './training-thread.js';

/** The GPID registry: match, resolve, get, merge and split. */
export const identitySubgraph: SubgraphDefinition = {
  name: 'identity',
  defaultPort: 4102,
  create: (runtime) => {
    let service: IdentityService | undefined;
    const training = trainingThread(runtime);
    return assembleSubgraph(runtime, {
      name: 'identity',
      entities: [],
      migrations,
      buildSchema: (services) => buildIdentitySchema((service = new IdentityService(services, training?.train))),
      async startWorkers(services) {
        await service!.start();
        // FHIR Patients' demographics → their GPID (fhir-patient-link.ts).
        const onFhirPatient = fhirPatientLinker(service!, services);
        const stopLinker = services.runtime.stream.consume('identity-fhir-link', onFhirPatient, { types: (type) => type === PATIENT_IDENTITY_REQUESTED });
        return async () => {
          await stopLinker();
          await training?.stop();
        };
      },
    });
  },
};

/**
 * Trainings of the scoring model run on a thread of their own in the processes that serve identity
 * requests (the embedded one, `subgraph:identity`), started with the first training: reading the
 * registry and running EM takes seconds of CPU that the resolves must not wait behind.
 */
function trainingThread(runtime: SubgraphRuntime): { train: Trainer; stop(): Promise<void> } | undefined {
  const { config } = runtime;
  if (config.role !== 'all' && config.role !== 'subgraph:identity') return undefined;
  let thread: JobThread | undefined;
  let stopped = false;
  return {
    train: (call) => {
      if (stopped) return Promise.reject(new DependencyUnavailable('job thread identity-training', new Error('the subgraph is stopping')));
      const data: TrainingThreadData = { config };
      thread ??= startJobThread({ name: 'identity-training', module: new URL('./training-thread.ts', import.meta.url).href, data, logger: runtime.logger, metrics: runtime.metrics });
      return thread.call<RegistryTraining>('train', call);
    },
    stop: async () => {
      stopped = true;
      await thread?.stop();
    },
  };
}

export { IdentityService } from './identity-service.js';
