import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { IdentityService } from './identity-service.js';
import { fhirPatientLinker, PATIENT_IDENTITY_REQUESTED } from './fhir-patient-link.js';
import { migrations } from './migrations/index.js';
import { buildIdentitySchema } from './schema/index.js';

/** The GPID registry: match, resolve, get, merge and split. */
export const identitySubgraph: SubgraphDefinition = {
  name: 'identity',
  defaultPort: 4102,
  create: (runtime) => {
    let service: IdentityService | undefined;
    return assembleSubgraph(runtime, {
      name: 'identity',
      entities: [],
      migrations,
      buildSchema: (services) => buildIdentitySchema((service = new IdentityService(services))),
      async startWorkers(services) {
        await service!.start();
        // FHIR Patients' demographics → their GPID (fhir-patient-link.ts).
        const onFhirPatient = fhirPatientLinker(service!, services);
        return services.runtime.stream.consume('identity-fhir-link', onFhirPatient, { types: (type) => type === PATIENT_IDENTITY_REQUESTED });
      },
    });
  },
};

export { IdentityService } from './identity-service.js';
