import type { EntityManager } from '@mikro-orm/core';
import { isConnectionFailure, type EventEnvelope, type Logger, type Principal } from '@svc/platform';
import { certificationRecords, type ObservedEvidence } from '../entities/certification-records.js';
import { evidenceFromEvent } from './certification-evidence-rules.js';
import { recordCertificationEvidence } from './certification-workflow.js';
import { OPERATOR_PARTNER_GPID } from './operator-partner.js';

/** Item completed by a partner's first authenticated call. */
export const FIRST_CALL_ITEM = 'sandbox_first_authenticated_call';

/** Source of the first-call evidence: constant, so the unique index keeps exactly one record per partner. */
const FIRST_CALL_SOURCE = 'first_authenticated_call';

/** Source of counted evidence (reads): one row per partner and item, its count the reads counted. */
const COUNTED_SOURCE = 'reads';

/** Source of other evidence observed from events: one row per partner and item, the first observation. */
const EVENTS_SOURCE = 'events';

/** How often the ids of counted events older than the stream's retention are forgotten. */
const PRUNE_EVERY_MS = 3600_000;

/**
 * Records certification evidence from what the partner subgraph sees: events on the bus from other
 * components (see certification-evidence-rules.ts) and authenticated requests reaching this subgraph.
 * Observations of sandbox items are recorded only in the sandbox environment. Everything is
 * idempotent: by event id for events, once per partner for the first call.
 */
export class CertificationObserver {
  /** Partners known to have first-call evidence; saves a query on every later request. */
  private readonly firstCallSeen = new Set<string>();
  private lastPrune = 0;

  constructor(
    private readonly fork: () => EntityManager,
    private readonly environment: 'sandbox' | 'production',
    private readonly logger: Logger,
    private readonly maxRemembered = 50_000,
  ) {}

  /**
   * Consume a batch of stream events (the durable `certification` consumer): the evidence they carry
   * is recorded in one transaction with a few statements, whatever the batch's size (see
   * `certificationRecords.recordObserved`): one row per partner and item, counted reads added
   * once per counting event. Throws only when the database is unreachable (the batch is retried);
   * other failures are logged.
   */
  async onEvents(events: readonly EventEnvelope[]): Promise<void> {
    if (this.environment !== 'sandbox') return;
    const observed: ObservedEvidence[] = [];
    for (const event of events) {
      if (event.partner_gpid === null) continue;
      for (const observation of evidenceFromEvent(event)) {
        const firstCall = observation.item_id === FIRST_CALL_ITEM;
        if (firstCall && this.firstCallSeen.has(event.partner_gpid)) continue;
        observed.push({
          partnerGpid: event.partner_gpid,
          itemId: observation.item_id,
          source: firstCall ? FIRST_CALL_SOURCE : observation.count !== undefined ? COUNTED_SOURCE : EVENTS_SOURCE,
          detail: observation.detail,
          observedAt: new Date(event.occurred_at),
          ...(observation.count !== undefined ? { count: { n: observation.count, countedBy: event.id } } : {}),
        });
      }
    }
    const now = new Date();
    try {
      if (observed.length > 0) await certificationRecords.recordObserved(this.fork(), observed, now);
      for (const o of observed) if (o.itemId === FIRST_CALL_ITEM) this.remember(o.partnerGpid);
      if (now.getTime() - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = now.getTime();
        await certificationRecords.pruneCountedEvents(this.fork(), now);
      }
    } catch (err) {
      // An unreachable database is retried by the durable consumer (the batch is not acknowledged).
      if (isConnectionFailure(err)) throw err;
      this.logger.error({ err, events: events.length }, 'certification evidence could not be recorded');
    }
  }

  /**
   * True when the principal is a partner's API token or OAuth access token whose partner's first
   * call is still unrecorded here. Portal sessions do not count: the item asks for an API call.
   */
  needsFirstCall(principal: Principal): boolean {
    return (
      this.environment === 'sandbox' &&
      principal.kind === 'partner' &&
      principal.partnerGpid !== null &&
      principal.partnerGpid !== OPERATOR_PARTNER_GPID &&
      !this.firstCallSeen.has(principal.partnerGpid)
    );
  }

  /** Record a partner's first successful authenticated request (once per partner). Never throws. */
  async onAuthenticatedCall(principal: Principal, requestId: string, now = new Date()): Promise<void> {
    const partnerGpid = principal.partnerGpid;
    if (!this.needsFirstCall(principal) || partnerGpid === null) return;
    try {
      const em = this.fork();
      if (!(await certificationRecords.hasAnyEvidence(em, partnerGpid, FIRST_CALL_ITEM))) {
        const credential = principal.tokenId ?? principal.clientId ?? principal.kind;
        await recordCertificationEvidence(em, {
          partnerGpid,
          itemId: FIRST_CALL_ITEM,
          source: FIRST_CALL_SOURCE,
          detail: `First authenticated request ${requestId} with ${credential}.`,
          observedAt: now,
        });
      }
      this.remember(partnerGpid);
    } catch (err) {
      this.logger.error({ err, partnerGpid }, 'first authenticated call could not be recorded');
    }
  }

  private remember(partnerGpid: string): void {
    if (this.firstCallSeen.size >= this.maxRemembered) this.firstCallSeen.clear();
    this.firstCallSeen.add(partnerGpid);
  }
}

const observers = new WeakMap<object, CertificationObserver>();

/**
 * The one observer of a subgraph instance, shared by its schema (first calls) and its workers (bus
 * events). Keyed by the services object both receive.
 */
export function certificationObserverFor(services: { orm: { em: { fork(): EntityManager } }; runtime: { config: { environment: 'sandbox' | 'production' }; logger: Logger } }): CertificationObserver {
  let observer = observers.get(services);
  if (!observer) {
    observer = new CertificationObserver(() => services.orm.em.fork(), services.runtime.config.environment, services.runtime.logger);
    observers.set(services, observer);
  }
  return observer;
}
