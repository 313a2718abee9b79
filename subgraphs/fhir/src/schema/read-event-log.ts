import type { SubgraphServices } from '@svc/platform';
import { ReadEventLog } from '../domain/read-events.js';

const logs = new WeakMap<SubgraphServices, ReadEventLog>();

/** The subgraph instance's one log of coalesced `fhir.resource.read` events (domain/read-events.ts). */
export function readEventLogOf(services: SubgraphServices): ReadEventLog {
  let log = logs.get(services);
  if (!log) {
    const logger = services.runtime.logger;
    log = new ReadEventLog(
      () => services.orm.em.fork(),
      () => services.publishCommitted(),
      (err) => logger.error({ err }, 'writing a fhir.resource.read event failed'),
      services.runtime.config.fhirReadEvents,
    );
    logs.set(services, log);
  }
  return log;
}
