/**
 * The identity subgraph's application layer: the domain pipeline over the SQL registry, plus merge,
 * split, the two-person rule, the audit chain and the events. Resolvers call this; it owns the
 * transactions. Every write path:
 *
 * - runs in one transaction with its outbox events (no change without its event, and no event
 *   without its change), then wakes the outbox relay;
 * - records the caller's `X-Svc-Source` as a confirmation of every GPID it touches;
 * - notes the GPID boundary header once per partner, path and day
 *   (`identity.boundary_headers.observed`, evidence for the partner certification).
 */
import {
  DomainError,
  validationError,
  hasScope,
  isId,
  isOperator,
  makeEvent,
  newId,
  newPatientGpid,
  type EventEnvelope,
  type Principal,
  type SubgraphServices,
  type TefcaSettings,
} from '@svc/platform';
import {
  assertIndependentApprover,
  canonicalJson,
  canTransition,
  CHANGE_REQUEST_TTL_DAYS,
  checkMergeable,
  checkSplittable,
  createIdentityPipeline,
  isRetryableRegistryConflict,
  KeyedMutex,
  planMerge,
  planSplit,
  alreadyDecided,
  readMergeRequest,
  readReviewDecision,
  readSplitRequest,
  type MergeRequestInput,
  type ChangeActor,
  type DemographicsInput,
  type IdentityPipeline,
  type IdentityRecord,
  type MatchResult,
  type MatchType,
  type RegistryChange,
  type ResolveOutcome,
  type ResolveRequest,
  type ResolveResult,
  type SourceOrigin,
  type StatusTransition,
  type ScoringModel,
} from './domain/index.js';
import { DeferredWrites } from './entities/deferred-writes.js';
import { appendAudit, listAudit, verifyAudit, type StoredAuditEntry } from './entities/audit-log.js';
import { observeBoundaryHeader } from './entities/boundary-observations.js';
import { decideChangeRequest, getChangeRequest, getChangeRequests, insertChangeRequest, listChangeRequests, type ChangeKind, type ChangeRequest, type ChangeStatus } from './entities/change-requests.js';
import { assertFingerprintKey } from './entities/key-checks.js';
import { addLineage, latestContribution, lineageOf, type LineageEvent } from './entities/lineage.js';
import { historySummaries, recentHistory, type MatchHistoryEntry, type MatchHistorySummary } from './entities/match-history.js';
import { trainOnRegistry, type Trainer } from './training.js';
import { stageEvent } from './entities/outbox.js';
import { closeReviewItem, getReviewItem, insertMatchLabel, insertReviewItem, listMatchLabels, listReviewItems, type MatchLabel, type ReviewItem, type ReviewStatus } from './entities/review-queue.js';
import { partnerLinks, type PartnerLink } from './entities/partner-links.js';
import { confirmSources, inheritConfirmations, sourcesOf, type SourceConfirmation } from './entities/sources.js';
import { SqlIdentityRegistry } from './entities/sql-registry.js';
import {
  activateScoringModel,
  activeScoringModel,
  activeScoringModelVersion,
  insertActiveScoringModel,
  listScoringModels,
  lockScoringModels,
  nextScoringModelVersion,
  scoringModelVersion,
  type StoredScoringModel,
} from './entities/scoring-models.js';
import { readTrainingRequest, type TrainingRequest } from './scoring-model-request.js';
import { isRetryableDatabaseError, Sql } from './entities/sql.js';
import { loadFingerprintKeyRing } from './fingerprint-key.js';
import { gpidsOf, identityViewer, visibleMatch, visibleResolution, type LinkView } from './identity-viewer.js';

/** The REST path of each write operation, as the boundary-header evidence names it. */
export const WRITE_PATHS = {
  resolve: '/api/identity/resolve',
  merge: '/api/identity/merge',
  split: '/api/identity/split',
  review: '/api/identity/review/{id}/decision',
} as const;

/** Event types this subgraph emits. */
export const IDENTITY_EVENTS = {
  match: 'identity.match',
  merge: 'identity.merge',
  merged: 'identity.merged.v1',
  split: 'identity.split.v1',
  statusChanged: 'identity.status.changed',
  boundaryObserved: 'identity.boundary_headers.observed',
} as const;

/** Audit entries of the scoring model (no event: the event catalog has none for them). */
export const SCORING_MODEL_AUDIT = {
  trained: 'identity.scoring_model.trained.v1',
  activated: 'identity.scoring_model.activated.v1',
} as const;

const DAY_MS = 86_400_000;
/** How often a replica checks whether another one activated a newer scoring model. */
const MODEL_RECHECK_MS = 30_000;

/** A new PENDING merge (`mrg_…`) or split (`spl_…`) request, expiring after the request TTL. */
function pendingChangeRequest(
  kind: ChangeKind,
  input: { reason: ChangeRequest['reason']; note: ChangeRequest['note']; survivorGpid: string; gpids: string[] },
  actor: ChangeActor,
  source: SourceOrigin,
  now: Date,
): ChangeRequest {
  return {
    id: newId(kind === 'merge' ? 'mrg' : 'spl', now.getTime()),
    kind,
    status: 'PENDING',
    reason: input.reason,
    note: input.note,
    survivorGpid: input.survivorGpid,
    gpids: input.gpids,
    requestedBy: actor,
    requestedSource: source,
    requestedAt: now,
    expiresAt: new Date(now.getTime() + CHANGE_REQUEST_TTL_DAYS * DAY_MS),
    decidedBy: null,
    decidedSource: null,
    decidedAt: null,
    decisionNote: null,
    auditSeq: null,
  };
}
const MAX_TRANSACTION_ATTEMPTS = 5;

function assertOperator(principal: Principal, what: string): void {
  if (!isOperator(principal)) throw new DomainError('FORBIDDEN', `Only platform operators (cms.admin) may ${what}.`);
}

export function actorOf(principal: Principal): ChangeActor {
  return {
    kind: principal.kind,
    partnerGpid: principal.partnerGpid,
    credentialId: principal.clientId ?? principal.tokenId ?? null,
    operator: isOperator(principal),
  };
}

/** The merge reason's match type in the `identity.match` events of a merge. */
function mergeMatchType(reason: string): MatchType {
  return reason === 'deterministic_exact' ? 'DETERMINISTIC' : 'PARTIAL';
}

function actorPayload(actor: ChangeActor) {
  return { kind: actor.kind, partner_gpid: actor.partnerGpid, credential_id: actor.credentialId };
}

/** The `identity.status.changed` events of status changes (a creation is announced by identity.match). */
function transitionEvents(transitions: readonly StatusTransition[], partnerGpid: string | null, at: Date): EventEnvelope[] {
  return transitions
    .filter((t) => t.from !== null)
    .map((t) => makeEvent(IDENTITY_EVENTS.statusChanged, partnerGpid, { event: IDENTITY_EVENTS.statusChanged, gpid: t.gpid, from: t.from, to: t.to, trigger: t.trigger, source: t.source }, at));
}

export interface AppliedChange {
  request: ChangeRequest;
  audit: StoredAuditEntry | null;
}

export class IdentityService {
  readonly sql: Sql;
  readonly registry: SqlIdentityRegistry;
  readonly pipeline: IdentityPipeline;
  private readonly keyRing;
  /** The active scoring model, from memory; re-checked in the background every MODEL_RECHECK_MS. */
  private model: { value: ScoringModel; checkedAt: number } | null = null;
  private modelRefresh: Promise<ScoringModel> | null = null;

  /** Resolves whose blocking keys overlap run one after the other in this process (see sql-registry.ts). */
  private readonly locks = new KeyedMutex();

  /** Where a training runs (the subgraph's training thread), in place by default. */
  private readonly train: Trainer;

  constructor(
    private readonly services: SubgraphServices,
    trainer?: Trainer,
  ) {
    this.sql = Sql.of(services.orm);
    this.train = trainer ?? ((call) => trainOnRegistry(this.sql, call));
    this.keyRing = loadFingerprintKeyRing(services.runtime.config);
    this.registry = new SqlIdentityRegistry(this.sql, {
      locks: this.locks,
      effects: async (tx, change) => {
        const writes = new DeferredWrites();
        await this.resolutionEffects(tx, change, writes);
        await writes.flush(tx);
      },
    });
    this.pipeline = this.pipelineOver(this.registry);
  }

  private pipelineOver(registry: SqlIdentityRegistry): IdentityPipeline {
    return createIdentityPipeline({ registry, keyRing: this.keyRing, newGpid: newPatientGpid, model: () => this.scoringModel() });
  }

  /**
   * Stages 1–6 for several requests, in order, in one transaction (the pipeline's `resolveAll`):
   * the same outcomes as resolving them one after the other, with one lock statement, one candidate
   * read and a few multi-row writes for the batch. `resolved` runs after each request, inside the
   * transaction, and may gather writes of its own in `writes` (written before the commit). No
   * `identity.match` event, history or confirmation is written for a refused request.
   */
  async resolveInOrder(
    requests: readonly ResolveRequest[],
    resolved: (outcome: ResolveOutcome, index: number, writes: DeferredWrites) => void,
  ): Promise<ResolveOutcome[]> {
    let writes = new DeferredWrites();
    const registry = new SqlIdentityRegistry(this.sql, { locks: this.locks, effects: (tx, change) => this.resolutionEffects(tx, change, writes) });
    const { outcomes } = await this.pipelineOver(registry).resolveAll(requests, {
      start: () => {
        writes = new DeferredWrites();
      },
      resolved: (_registry, outcome, index) => resolved(outcome, index, writes),
      finish: async (bound) => {
        if (!(bound instanceof SqlIdentityRegistry)) throw new Error('resolveInOrder runs on the SQL registry');
        await writes.flush(bound.sql);
      },
    });
    this.services.publishCommitted();
    return outcomes;
  }

  /**
   * The model stage 4 scores with: from memory on the hot path. Only the very first call waits for
   * the database (start() makes that call); afterwards a stale copy is served while a background
   * check picks up a version activated by another replica.
   */
  private scoringModel(): ScoringModel | Promise<ScoringModel> {
    const cached = this.model;
    if (cached && Date.now() - cached.checkedAt < MODEL_RECHECK_MS) return cached.value;
    const refresh = this.refreshModel();
    if (!cached) return refresh;
    refresh.catch(() => undefined); // a failed check keeps the cached model until the next one
    return cached.value;
  }

  private refreshModel(): Promise<ScoringModel> {
    this.modelRefresh ??= (async () => {
      try {
        const version = await activeScoringModelVersion(this.sql);
        const value = this.model?.value.version === version ? this.model.value : (await activeScoringModel(this.sql)).model;
        this.model = { value, checkedAt: Date.now() };
        return value;
      } finally {
        this.modelRefresh = null;
      }
    })();
    return this.modelRefresh;
  }

  /** Refuses to run with a fingerprint key other than the registry's (see key-checks.ts). */
  async start(): Promise<void> {
    const current = this.keyRing.keys.find((k) => k.version === this.keyRing.current)!;
    await assertFingerprintKey(this.sql, current.version, current.secret);
    // Blocking keys are random (HMAC), so index pages are touched all over: on the embedded SQLite
    // file, a 64 MiB page cache (instead of 2 MiB) keeps lookups and inserts off the file system.
    if (!this.sql.postgres) await this.sql.rows('pragma cache_size = -65536');
    await this.refreshModel();
  }

  // -------------------------------------------------------------------------------------------
  // Scoring model versions
  // -------------------------------------------------------------------------------------------

  /** Operators only: a version of the scoring model, the active one by default (null when unknown). */
  async scoringModelVersion(principal: Principal, version: number | null): Promise<StoredScoringModel | null> {
    assertOperator(principal, 'read the identity scoring model');
    if (version === null) return activeScoringModel(this.sql);
    return scoringModelVersion(this.sql, version);
  }

  /** Operators only: every version, newest first (without parameters). */
  async scoringModelVersions(principal: Principal): Promise<Omit<StoredScoringModel, 'model'>[]> {
    assertOperator(principal, 'list the identity scoring models');
    return listScoringModels(this.sql);
  }

  /**
   * Operators only: trains a new model version on the registry's records (training.ts) with the
   * given labels and the review queue's decisions, stores it
   * and makes it active in this replica at once (in the others within MODEL_RECHECK_MS), with an
   * entry in the audit chain.
   */
  async trainScoringModel(principal: Principal, input: TrainingRequest): Promise<StoredScoringModel> {
    assertOperator(principal, 'train the identity scoring model');
    const request = readTrainingRequest(input);
    const { version, model, summary } = await this.train(request);
    const at = new Date();
    const trainedBy = principal.partnerGpid ?? principal.clientId ?? principal.tokenId ?? null;
    await this.sql.transaction(async (tx) => {
      await lockScoringModels(tx);
      // Trained outside the transaction: a training that finished meanwhile took this version.
      if ((await nextScoringModelVersion(tx)) !== version) throw new DomainError('CONFLICT', `Another training was stored as version ${version} meanwhile; train again.`);
      const previous = await activeScoringModelVersion(tx);
      await insertActiveScoringModel(tx, { version, seed: request.seed, trainedBy, summary, model, at });
      const { records: n, observations: inbound, randomPairs, blockedPairs, labelledPairs, rounds } = summary;
      await this.auditScoringModel(tx, SCORING_MODEL_AUDIT.trained, { version, previous_version: previous, seed: request.seed, trained_by: actorPayload(actorOf(principal)), summary: { records: n, observations: inbound, randomPairs, blockedPairs, labelledPairs, rounds } }, at);
    });
    this.model = { value: model, checkedAt: Date.now() };
    return { version, active: true, seed: request.seed, trainedBy, createdAt: at, summary, model };
  }

  /**
   * Operators only: make a stored version the active one again (roll back to an earlier version,
   * or forward to a later one), with an entry in the audit chain; the active version answers
   * unchanged and records nothing. Active in this replica at once, in the others within
   * MODEL_RECHECK_MS. NOT_FOUND for an unknown version.
   */
  async activateScoringModel(principal: Principal, version: number): Promise<StoredScoringModel> {
    assertOperator(principal, 'activate an identity scoring model');
    if (!Number.isInteger(version) || version < 1) throw validationError([{ field: 'version', message: 'must be a version number (1 or more)' }]);
    const target = await scoringModelVersion(this.sql, version);
    if (!target) throw new DomainError('NOT_FOUND', `No scoring model has version ${version}.`);
    if (target.active) return target;
    const at = new Date();
    await this.sql.transaction(async (tx) => {
      await lockScoringModels(tx);
      const previous = await activeScoringModelVersion(tx);
      await activateScoringModel(tx, version);
      await this.auditScoringModel(tx, SCORING_MODEL_AUDIT.activated, { version, previous_version: previous, activated_by: actorPayload(actorOf(principal)) }, at);
    });
    this.model = { value: target.model, checkedAt: Date.now() };
    return { ...target, active: true };
  }

  private async auditScoringModel(tx: Sql, type: string, payload: Record<string, unknown>, at: Date): Promise<void> {
    await appendAudit(tx, { eventId: newId('evt', at.getTime()), type, occurredAt: at.toISOString(), payload: canonicalJson({ event: type, ...payload, at: at.toISOString() }), partnerGpid: null });
  }

  // -------------------------------------------------------------------------------------------
  // Match and resolve
  // -------------------------------------------------------------------------------------------

  /** Stages 1–4: candidates (a partner sees those it links to). Writes nothing at all. */
  async match(principal: Principal, input: DemographicsInput, options: { entityType: string | null; strict?: boolean | null }): Promise<MatchResult> {
    const result = await this.pipeline.match(input, { entityType: options.entityType, strict: options.strict ?? false });
    return visibleMatch(result, await this.linkView(principal, gpidsOf(result)));
  }

  /**
   * TEFCA inbound patient discovery (XCPD): stages 1–4 against the whole registry, the community's
   * population, as the TEFCA framework asks of a responding community (not the caller's links).
   * Writes nothing but its audit event; see tefca-discovery.ts for what is disclosed.
   */
  matchForExchange(input: DemographicsInput): Promise<MatchResult> {
    return this.pipeline.match(input, { entityType: 'patient', strict: false });
  }

  /** The TEFCA settings (our home community id). */
  get tefca(): TefcaSettings {
    return this.services.runtime.config.tefca;
  }

  /** Stage one event in the identity outbox and publish it (an exchange's audit event). */
  async recordEvent(event: EventEnvelope): Promise<void> {
    await stageEvent(this.sql, event);
    this.services.publishCommitted();
  }

  /** Stages 1–6 in one transaction with history, confirmation and events. */
  async resolve(principal: Principal, input: DemographicsInput, options: { source: SourceOrigin; entityType: string | null; strict?: boolean | null }): Promise<ResolveResult> {
    const result = await this.pipeline.resolve(input, {
      source: options.source,
      entityType: options.entityType,
      strict: options.strict ?? false,
      actor: principal.partnerGpid,
      actorSeesAll: identityViewer(principal).unrestricted,
    });
    this.services.publishCommitted();
    return visibleResolution(result, await this.linkView(principal, gpidsOf(result)));
  }

  /** The principal's links to `gpids`; null for an operator (sees every one). */
  private async linkView(principal: Principal, gpids: readonly string[], sql: Sql = this.sql): Promise<LinkView> {
    const viewer = identityViewer(principal);
    return viewer.unrestricted ? null : partnerLinks(sql, viewer.partnerGpid, gpids);
  }

  /** Which of `gpids` the principal may see (every one for an operator). */
  private async visibility(principal: Principal, gpids: readonly string[], sql: Sql = this.sql): Promise<(gpid: string) => boolean> {
    const links = await this.linkView(principal, gpids, sql);
    return (gpid) => links === null || links.get(gpid)?.linked === true;
  }

  /** A partner's links to `gpids` (see entities/partner-links.ts). */
  partnerLinks(partnerGpid: string | null, gpids: readonly string[]): Promise<Map<string, PartnerLink>> {
    return partnerLinks(this.sql, partnerGpid, gpids);
  }

  /** What a resolve writes beside the records, in the same transaction (gathered in `writes`, written by its flush). */
  private async resolutionEffects(tx: Sql, change: RegistryChange, writes: DeferredWrites): Promise<void> {
    const resolution = change.resolution;
    if (!resolution) return;
    const at = new Date(resolution.at);
    writes.confirm(resolution.gpid, resolution.source, at);
    writes.resolution(resolution);
    // A record linked for review is never a silent duplicate: its candidates wait in the review queue.
    if (resolution.review && resolution.review.length > 0) {
      await insertReviewItem(tx, { id: newId('rvw', at.getTime()), subjectGpid: resolution.gpid, candidates: resolution.review, partnerGpid: resolution.actor, source: resolution.source, createdAt: at });
    }
    // The events go to the resolving partner: they name other records only if it links to them.
    // A status change of a record it does not link to (duplicate detection) goes to operators only.
    const others = [...new Set([...(resolution.subjectGpid ? [resolution.subjectGpid] : []), ...change.transitions.map((t) => t.gpid)])].filter((g) => g !== resolution.gpid);
    // partnerLinks reads the match history: what was gathered so far is written first.
    if (!resolution.actorSeesAll && others.length > 0) await writes.flush(tx);
    const links = resolution.actorSeesAll || others.length === 0 ? null : await partnerLinks(tx, resolution.actor, others);
    const linked = (gpid: string) => gpid === resolution.gpid || links === null || links.get(gpid)?.linked === true;
    writes.event(
      makeEvent(
        IDENTITY_EVENTS.match,
        resolution.actor,
        {
          event: IDENTITY_EVENTS.match,
          gpid: resolution.gpid,
          match_type: resolution.matchType,
          identity_status: resolution.status,
          subject_gpid: resolution.subjectGpid !== null && linked(resolution.subjectGpid) ? resolution.subjectGpid : null,
        },
        at,
      ),
    );
    for (const event of transitionEvents(change.transitions.filter((t) => linked(t.gpid)), resolution.actor, at)) writes.event(event);
    for (const event of transitionEvents(change.transitions.filter((t) => !linked(t.gpid)), null, at)) writes.event(event);
    if (resolution.actor && (await writes.observeBoundary(tx, resolution.actor, resolution.via ?? WRITE_PATHS.resolve, resolution.source, at))) {
      writes.event(makeEvent(IDENTITY_EVENTS.boundaryObserved, resolution.actor, { event: IDENTITY_EVENTS.boundaryObserved, partner_gpid: resolution.actor, source: resolution.source, path: resolution.via ?? WRITE_PATHS.resolve }, at));
    }
  }

  private async stageTransitions(tx: Sql, transitions: readonly StatusTransition[], partnerGpid: string | null, at: Date): Promise<void> {
    for (const event of transitionEvents(transitions, partnerGpid, at)) await stageEvent(tx, event);
  }

  private async observeBoundary(tx: Sql, partnerGpid: string, path: string, source: SourceOrigin, at: Date): Promise<void> {
    if (await observeBoundaryHeader(tx, partnerGpid, path, source, at)) {
      await stageEvent(tx, makeEvent(IDENTITY_EVENTS.boundaryObserved, partnerGpid, { event: IDENTITY_EVENTS.boundaryObserved, partner_gpid: partnerGpid, source, path }, at));
    }
  }

  // -------------------------------------------------------------------------------------------
  // Reads
  // -------------------------------------------------------------------------------------------

  records(gpids: readonly string[]): Promise<Map<string, IdentityRecord>> {
    return this.registry.getMany(gpids);
  }

  sources(gpids: readonly string[]): Promise<Map<string, SourceConfirmation[]>> {
    return sourcesOf(this.sql, gpids);
  }

  lineage(gpids: readonly string[]): Promise<Map<string, LineageEvent[]>> {
    return lineageOf(this.sql, gpids);
  }

  /** With `partnerGpid`: that partner's resolves only. */
  historySummaries(gpids: readonly string[], partnerGpid?: string): Promise<Map<string, MatchHistorySummary>> {
    return historySummaries(this.sql, gpids, partnerGpid);
  }

  recentHistory(gpid: string, limit: number, partnerGpid?: string): Promise<MatchHistoryEntry[]> {
    return recentHistory(this.sql, gpid, limit, partnerGpid);
  }

  /** Where a MERGED record's identity lives now: follows `mergedInto` to the end (bounded). */
  async terminalSurvivor(record: IdentityRecord): Promise<IdentityRecord | null> {
    let current = record;
    const seen = new Set([record.gpid]);
    while (current.mergedInto) {
      if (seen.has(current.mergedInto) || seen.size > 32) break;
      seen.add(current.mergedInto);
      const next = await this.registry.get(current.mergedInto);
      if (!next) break;
      current = next;
    }
    return current.gpid === record.gpid ? null : current;
  }

  changeRequest(id: string): Promise<ChangeRequest | null> {
    return getChangeRequest(this.sql, id, new Date());
  }

  changeRequestsById(ids: readonly string[]): Promise<Map<string, ChangeRequest>> {
    return getChangeRequests(this.sql, ids, new Date());
  }

  changeRequests(options: { status: ChangeStatus | null; kind: ChangeKind | null; size: number; beforeId: string | null; partnerGpid?: string | null }): Promise<ChangeRequest[]> {
    return listChangeRequests(this.sql, { ...options, now: new Date() });
  }

  verifyAudit() {
    return verifyAudit(this.sql);
  }

  /** With `partnerGpid`: only the changes that partner requested. */
  auditEntries(options: { afterSeq: number; size: number; types?: readonly string[] | null; partnerGpid?: string }) {
    return listAudit(this.sql, options);
  }

  /**
   * May the principal see this merge or split request? Operators: every one. A partner: those it
   * requested, and (holding identity.approve) those on GPIDs it all links to. Any other looks missing.
   */
  async canSeeChangeRequest(principal: Principal, request: ChangeRequest, sql: Sql = this.sql): Promise<boolean> {
    const viewer = identityViewer(principal);
    if (viewer.unrestricted) return true;
    if (viewer.partnerGpid !== null && request.requestedBy.partnerGpid === viewer.partnerGpid) return true;
    if (!hasScope(principal.scopes, 'identity.approve')) return false;
    const gpids = [...(request.survivorGpid ? [request.survivorGpid] : []), ...request.gpids];
    const visible = await this.visibility(principal, gpids, sql);
    return gpids.every(visible);
  }

  // -------------------------------------------------------------------------------------------
  // Merge and split: request, then approve (or reject) by a second principal
  // -------------------------------------------------------------------------------------------

  /** Runs `work` in a transaction, again on a retryable conflict, then publishes its events. */
  private async write<T>(work: (tx: Sql, registry: SqlIdentityRegistry) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.sql.transaction((tx) => work(tx, this.registry.bind(tx)));
        this.services.publishCommitted();
        return result;
      } catch (error) {
        if (attempt < MAX_TRANSACTION_ATTEMPTS && (isRetryableRegistryConflict(error) || isRetryableDatabaseError(error))) continue;
        throw error;
      }
    }
  }

  /** The records of `gpids`; unknown ones, and (with a viewer check) ones it may not see, are NOT_FOUND alike. */
  private static async existing(
    registry: SqlIdentityRegistry,
    gpids: readonly string[],
    lock: boolean,
    visible: (gpid: string) => boolean = () => true,
  ): Promise<Map<string, IdentityRecord>> {
    const found = await registry.getMany(gpids, { lock });
    const missing = gpids.filter((g) => !found.has(g) || !visible(g));
    if (missing.length > 0) {
      throw new DomainError('NOT_FOUND', `No identity record has GPID ${missing.join(', ')}.`, { details: { unknown_gpids: missing } });
    }
    return found;
  }

  /** A pending merge (`mrg_…`): validated now, applied only when another principal approves it. */
  async requestMerge(principal: Principal, raw: { survivorGpid?: unknown; mergedGpids?: unknown; reason?: unknown; note?: unknown }, source: SourceOrigin): Promise<ChangeRequest> {
    const input = readMergeRequest(raw);
    return this.write((tx, registry) => this.requestMergeIn(tx, registry, principal, input, source, WRITE_PATHS.merge));
  }

  /** A pending merge in the caller's transaction (a merge request, or a review item decided the same person). */
  private async requestMergeIn(tx: Sql, registry: SqlIdentityRegistry, principal: Principal, input: MergeRequestInput, source: SourceOrigin, path: string): Promise<ChangeRequest> {
    const gpids = [input.survivorGpid, ...input.mergedGpids];
    const records = await IdentityService.existing(registry, gpids, false, await this.visibility(principal, gpids, tx));
    checkMergeable(records.get(input.survivorGpid)!, input.mergedGpids.map((g) => records.get(g)!));
    const now = new Date();
    const request = pendingChangeRequest('merge', { reason: input.reason, note: input.note, survivorGpid: input.survivorGpid, gpids: input.mergedGpids }, actorOf(principal), source, now);
    await insertChangeRequest(tx, request);
    if (principal.partnerGpid) await this.observeBoundary(tx, principal.partnerGpid, path, source, now);
    return request;
  }

  /** A pending split (`spl_…`) of a MERGED GPID from its survivor. */
  async requestSplit(principal: Principal, raw: { gpid?: unknown; reason?: unknown; note?: unknown }, source: SourceOrigin): Promise<ChangeRequest> {
    const input = readSplitRequest(raw);
    const actor = actorOf(principal);
    return this.write(async (tx, registry) => {
      const record = (await IdentityService.existing(registry, [input.gpid], false, await this.visibility(principal, [input.gpid], tx))).get(input.gpid)!;
      const survivor = record.mergedInto ? await registry.get(record.mergedInto) : undefined;
      checkSplittable(record, survivor);
      const now = new Date();
      const request = pendingChangeRequest('split', { reason: input.reason, note: input.note, survivorGpid: survivor.gpid, gpids: [input.gpid] }, actor, source, now);
      await insertChangeRequest(tx, request);
      if (principal.partnerGpid) await this.observeBoundary(tx, principal.partnerGpid, WRITE_PATHS.split, source, now);
      return request;
    });
  }

  /** The request to decide: a request the principal may not see is NOT_FOUND like a missing one. */
  private async pending(tx: Sql, principal: Principal, requestId: string, now: Date): Promise<ChangeRequest> {
    const request = await getChangeRequest(tx, requestId, now, { lock: true });
    if (!request || !(await this.canSeeChangeRequest(principal, request, tx))) throw new DomainError('NOT_FOUND', `No merge or split request has id ${requestId}.`);
    if (request.status !== 'PENDING') {
      throw new DomainError('CONFLICT', `Request ${requestId} is ${request.status}${request.status === 'EXPIRED' ? ` (it expired at ${request.expiresAt.toISOString()})` : ''}; only a PENDING request can be decided.`, {
        details: { request_id: requestId, status: request.status },
      });
    }
    return request;
  }

  /**
   * The second principal's approval: checks the two-person rule, applies the merge or split in one
   * transaction with its audit entry (identity.merged.v1 / identity.split.v1) and events.
   */
  async approve(principal: Principal, requestId: string, source: SourceOrigin, note: string | null): Promise<AppliedChange> {
    const approver = actorOf(principal);
    return this.write(async (tx, registry) => {
      const now = new Date();
      const request = await this.pending(tx, principal, requestId, now);
      assertIndependentApprover(request.requestedBy, approver);
      const at = now.toISOString();
      const sources = [...new Set([request.requestedSource, source])];
      const audit = request.kind === 'merge'
        ? await this.applyMerge(tx, registry, request, { approver, source, note, at, sources })
        : await this.applySplit(tx, registry, request, { approver, source, note, at, sources });
      if (!(await decideChangeRequest(tx, request.id, { status: 'APPLIED', decidedBy: approver, decidedSource: source, decidedAt: now, decisionNote: note, auditSeq: audit.seq }))) {
        throw new DomainError('CONFLICT', `Request ${requestId} was decided concurrently.`);
      }
      if (principal.partnerGpid) await this.observeBoundary(tx, principal.partnerGpid, WRITE_PATHS[request.kind], source, now);
      return {
        request: { ...request, status: 'APPLIED', decidedBy: approver, decidedSource: source, decidedAt: now, decisionNote: note, auditSeq: audit.seq },
        audit,
      };
    });
  }

  private async applyMerge(
    tx: Sql,
    registry: SqlIdentityRegistry,
    request: ChangeRequest,
    decision: { approver: ChangeActor; source: SourceOrigin; note: string | null; at: string; sources: SourceOrigin[] },
  ): Promise<StoredAuditEntry> {
    const survivorGpid = request.survivorGpid!;
    const records = await IdentityService.existing(registry, [survivorGpid, ...request.gpids], true);
    const plan = planMerge(records.get(survivorGpid)!, request.gpids.map((g) => records.get(g)!), { at: decision.at, sources: decision.sources });
    await registry.commit(plan.change);
    const when = new Date(decision.at);
    for (const merged of plan.merged) {
      await addLineage(tx, { kind: 'merge', survivorGpid, gpid: merged.gpid, requestId: request.id, reason: request.reason, at: when, contribution: plan.contributions.get(merged.gpid) ?? null });
    }
    await inheritConfirmations(tx, request.gpids, survivorGpid);
    for (const source of decision.sources) await confirmSources(tx, [survivorGpid, ...request.gpids], source, when);
    const partnerGpid = request.requestedBy.partnerGpid;
    const payload = {
      event: 'identity.merged.v1',
      request_id: request.id,
      survivor_gpid: survivorGpid,
      merged_gpids: request.gpids,
      reason: request.reason,
      note: request.note,
      survivor_status: plan.survivor.status,
      requested_by: actorPayload(request.requestedBy),
      requested_source: request.requestedSource,
      requested_at: request.requestedAt.toISOString(),
      approved_by: actorPayload(decision.approver),
      approved_source: decision.source,
      approval_note: decision.note,
      merged_at: decision.at,
    };
    const event = makeEvent(IDENTITY_EVENTS.merged, partnerGpid, payload, when);
    const audit = await appendAudit(tx, { eventId: event.id, type: event.type, occurredAt: event.occurred_at, payload: canonicalJson(payload), partnerGpid });
    await stageEvent(tx, { ...event, data: { ...payload, audit_seq: audit.seq, audit_hash: audit.hash } });
    await stageEvent(tx, makeEvent(IDENTITY_EVENTS.merge, partnerGpid, { event: IDENTITY_EVENTS.merge, survivor_gpid: survivorGpid, merged_gpids: request.gpids, merged_at: decision.at }, when));
    for (const merged of plan.merged) {
      await stageEvent(
        tx,
        makeEvent(IDENTITY_EVENTS.match, partnerGpid, { event: IDENTITY_EVENTS.match, gpid: survivorGpid, match_type: mergeMatchType(request.reason), identity_status: plan.survivor.status, subject_gpid: merged.gpid }, when),
      );
    }
    await this.stageTransitions(tx, plan.change.transitions, partnerGpid, when);
    return audit;
  }

  private async applySplit(
    tx: Sql,
    registry: SqlIdentityRegistry,
    request: ChangeRequest,
    decision: { approver: ChangeActor; source: SourceOrigin; note: string | null; at: string; sources: SourceOrigin[] },
  ): Promise<StoredAuditEntry> {
    const gpid = request.gpids[0]!;
    const restored = (await IdentityService.existing(registry, [gpid], true)).get(gpid)!;
    const survivor = restored.mergedInto ? (await registry.getMany([restored.mergedInto], { lock: true })).get(restored.mergedInto) : undefined;
    const contribution = survivor ? await latestContribution(tx, gpid, survivor.gpid) : null;
    const plan = planSplit(restored, survivor, contribution, { at: decision.at, sources: decision.sources });
    await registry.commit(plan.change);
    const when = new Date(decision.at);
    await addLineage(tx, { kind: 'split', survivorGpid: plan.survivor.gpid, gpid, requestId: request.id, reason: request.reason, at: when });
    for (const source of decision.sources) await confirmSources(tx, [gpid, plan.survivor.gpid], source, when);
    const partnerGpid = request.requestedBy.partnerGpid;
    const payload = {
      event: 'identity.split.v1',
      request_id: request.id,
      gpid,
      split_from_gpid: plan.survivor.gpid,
      identity_status: plan.restored.status,
      reason: request.reason,
      note: request.note,
      requested_by: actorPayload(request.requestedBy),
      requested_source: request.requestedSource,
      requested_at: request.requestedAt.toISOString(),
      approved_by: actorPayload(decision.approver),
      approved_source: decision.source,
      approval_note: decision.note,
      split_at: decision.at,
    };
    const event = makeEvent(IDENTITY_EVENTS.split, partnerGpid, payload, when);
    const audit = await appendAudit(tx, { eventId: event.id, type: event.type, occurredAt: event.occurred_at, payload: canonicalJson(payload), partnerGpid });
    await stageEvent(tx, { ...event, data: { ...payload, audit_seq: audit.seq, audit_hash: audit.hash } });
    await stageEvent(
      tx,
      makeEvent(IDENTITY_EVENTS.match, partnerGpid, { event: IDENTITY_EVENTS.match, gpid, match_type: 'NONE', identity_status: plan.restored.status, subject_gpid: plan.survivor.gpid }, when),
    );
    await this.stageTransitions(tx, plan.change.transitions, partnerGpid, when);
    return audit;
  }

  /**
   * Declines a pending request: the requester may withdraw it (same credential), or an independent
   * principal holding identity.approve may reject it. Nothing in the registry changes.
   */
  async reject(principal: Principal, requestId: string, source: SourceOrigin, note: string | null): Promise<ChangeRequest> {
    const decider = actorOf(principal);
    return this.write(async (tx) => {
      const now = new Date();
      const request = await this.pending(tx, principal, requestId, now);
      const withdrawal = decider.credentialId !== null && decider.credentialId === request.requestedBy.credentialId;
      if (!withdrawal) {
        if (!hasScope(principal.scopes, 'identity.approve')) {
          throw new DomainError('INSUFFICIENT_SCOPE', 'Only the requester (withdrawing it) or a principal with identity.approve may reject a request.');
        }
        assertIndependentApprover(request.requestedBy, decider);
      }
      if (!(await decideChangeRequest(tx, request.id, { status: 'REJECTED', decidedBy: decider, decidedSource: source, decidedAt: now, decisionNote: note, auditSeq: null }))) {
        throw new DomainError('CONFLICT', `Request ${requestId} was decided concurrently.`);
      }
      if (principal.partnerGpid) await this.observeBoundary(tx, principal.partnerGpid, WRITE_PATHS[request.kind], source, now);
      return { ...request, status: 'REJECTED' as const, decidedBy: decider, decidedSource: source, decidedAt: now, decisionNote: note };
    });
  }

  // -------------------------------------------------------------------------------------------
  // Review queue: records linked for review, decided pair by pair
  // -------------------------------------------------------------------------------------------

  /**
   * The item as the principal may see it, or null. Operators: all of it. A partner: an item whose
   * subject it links to, with only the candidates (and decisions) it links to, and the status of
   * that part; without any such candidate the item does not exist for it.
   */
  private async reviewView(principal: Principal, item: ReviewItem, sql: Sql = this.sql): Promise<ReviewItem | null> {
    const links = await this.linkView(principal, [item.subjectGpid, ...item.candidates.map((c) => c.gpid)], sql);
    if (links === null) return item;
    const linked = (gpid: string) => links.get(gpid)?.linked === true;
    if (!linked(item.subjectGpid)) return null;
    const candidates = item.candidates.filter((c) => linked(c.gpid));
    if (candidates.length === 0) return null;
    const labels = item.labels.filter((l) => linked(l.rightRecordId));
    const open = candidates.some((c) => !labels.some((l) => l.rightRecordId === c.gpid));
    return { ...item, candidates, labels, status: open ? 'OPEN' : 'CLOSED', closedAt: open ? null : (labels.at(-1)?.decidedAt ?? item.closedAt) };
  }

  /** One item (null when missing or not visible: the same answer). */
  async reviewItem(principal: Principal, id: string): Promise<ReviewItem | null> {
    const item = await getReviewItem(this.sql, id);
    return item ? this.reviewView(principal, item) : null;
  }

  /**
   * A page of the queue, oldest first, after the item `afterId`. A partner's page holds the items
   * it may see among the next rows scanned, so it may be shorter than `size`; `more` says whether
   * rows remain after `lastId` (the next page's cursor).
   */
  async reviewQueue(principal: Principal, options: { status: ReviewStatus | null; size: number; afterId: string | null }): Promise<{ items: ReviewItem[]; more: boolean; lastId: string | null }> {
    const unrestricted = identityViewer(principal).unrestricted;
    const items: ReviewItem[] = [];
    let afterId = options.afterId;
    const batch = options.size + 1;
    // Global OPEN is the only status a partner's view can be filtered on in SQL (its CLOSED part may be globally OPEN).
    const sqlStatus = unrestricted || options.status === 'OPEN' ? options.status : null;
    for (let scans = 0; scans < 20; scans++) {
      const rows = await listReviewItems(this.sql, { status: sqlStatus, afterId, limit: batch });
      for (const row of rows) {
        const seen = await this.reviewView(principal, row);
        if (seen && (options.status === null || seen.status === options.status)) items.push(seen);
        afterId = row.id;
        if (items.length > options.size) return { items: items.slice(0, options.size), more: true, lastId: items[options.size - 1]!.id };
      }
      if (rows.length < batch) return { items, more: false, lastId: items.at(-1)?.id ?? null };
    }
    // Bounded work per page: the cursor continues after the last row scanned.
    return { items, more: true, lastId: afterId };
  }

  /**
   * An operator's decision on one pair of an item. Same person: a merge request (the existing
   * path: the candidate's current survivor survives, an independent approver applies it); not the
   * same: the pair's review links are removed (a record left with none is confirmed ACTIVE,
   * review_confirmed). Either way the decision is a training label, and the item closes once every
   * candidate is decided.
   */
  async decideReview(principal: Principal, itemId: string, raw: { candidateGpid?: unknown; same?: unknown; note?: unknown }, source: SourceOrigin): Promise<{ item: ReviewItem; label: MatchLabel; mergeRequest: ChangeRequest | null }> {
    const decision = readReviewDecision(raw);
    if (!isId('rvw', itemId)) throw new DomainError('VALIDATION_ERROR', 'The review item id is malformed.', { fieldErrors: [{ field: 'item_id', message: 'must be the id of a review item (rvw_…)' }] });
    return this.write(async (tx, registry) => {
      const stored = await getReviewItem(tx, itemId, { lock: true });
      const item = stored ? await this.reviewView(principal, stored, tx) : null;
      if (!item) throw new DomainError('NOT_FOUND', `No review item has id ${itemId}.`);
      const candidate = item.candidates.find((c) => c.gpid === decision.candidateGpid);
      if (!candidate) {
        throw new DomainError('VALIDATION_ERROR', 'The review decision has invalid fields.', { fieldErrors: [{ field: 'candidate_gpid', message: `is not a candidate of review item ${itemId}` }] });
      }
      const earlier = stored!.labels.find((l) => l.rightRecordId === candidate.gpid);
      if (earlier) throw alreadyDecided(itemId, candidate.gpid, earlier.same);
      const now = new Date();
      let mergeRequest: ChangeRequest | null = null;
      if (decision.same) {
        const [subject, other] = await Promise.all([this.currentRecord(registry, item.subjectGpid), this.currentRecord(registry, candidate.gpid)]);
        if (subject && other && subject.gpid !== other.gpid) {
          const note = `review ${itemId}${decision.note ? `: ${decision.note}` : ''}`.slice(0, 1000);
          mergeRequest = await this.requestMergeIn(tx, registry, principal, { survivorGpid: other.gpid, mergedGpids: [subject.gpid], reason: 'manual_review', note }, source, WRITE_PATHS.review);
        }
      } else {
        await this.separate(tx, registry, item.subjectGpid, candidate.gpid, source, principal.partnerGpid, now);
      }
      const label: MatchLabel = {
        itemId,
        leftRecordId: item.subjectGpid,
        rightRecordId: candidate.gpid,
        same: decision.same,
        decidedBy: actorOf(principal),
        decidedSource: source,
        decidedAt: now,
        note: decision.note,
        mergeRequestId: mergeRequest?.id ?? null,
      };
      await insertMatchLabel(tx, label);
      const labels = [...stored!.labels, label];
      if (stored!.candidates.every((c) => labels.some((l) => l.rightRecordId === c.gpid))) await closeReviewItem(tx, itemId, now);
      if (!decision.same && principal.partnerGpid) await this.observeBoundary(tx, principal.partnerGpid, WRITE_PATHS.review, source, now);
      const after = await getReviewItem(tx, itemId);
      return { item: (await this.reviewView(principal, after!, tx))!, label, mergeRequest };
    });
  }

  /** The record a GPID's identity lives in now (its terminal survivor when MERGED). */
  private async currentRecord(registry: SqlIdentityRegistry, gpid: string): Promise<IdentityRecord | null> {
    const record = await registry.get(gpid);
    if (!record) return null;
    return record.status === 'MERGED' ? await this.terminalSurvivor(record) : record;
  }

  /** Not the same person: the two records stop pointing at each other for review. */
  private async separate(tx: Sql, registry: SqlIdentityRegistry, a: string, b: string, source: SourceOrigin, partnerGpid: string | null, now: Date): Promise<void> {
    const records = await registry.getMany([a, b], { lock: true });
    const at = now.toISOString();
    const updates: RegistryChange['updates'][number][] = [];
    const transitions: StatusTransition[] = [];
    for (const [self, other] of [[a, b], [b, a]] as const) {
      const record = records.get(self);
      if (!record || record.status === 'MERGED' || !record.links.includes(other)) continue;
      const links = record.links.filter((g) => g !== other);
      let status = record.status;
      if (links.length === 0 && (status === 'PROVISIONAL' || status === 'CONFLICT') && canTransition(status, 'ACTIVE', 'review_confirmed')) {
        status = 'ACTIVE';
        transitions.push({ gpid: self, from: record.status, to: 'ACTIVE', trigger: 'review_confirmed', source });
      }
      updates.push({ record: { ...record, links, status, updatedAt: at, version: record.version + 1 }, expectedVersion: record.version });
    }
    if (updates.length === 0) return;
    await registry.commit({ inserts: [], updates, transitions });
    await this.stageTransitions(tx, transitions, partnerGpid, now);
  }

  /** The training labels of the scoring model (see entities/review-queue.ts, `listMatchLabels`). */
  listMatchLabels(options: { afterSeq?: number; limit?: number } = {}) {
    return listMatchLabels(this.sql, options);
  }
}
