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
  hasScope,
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
  CHANGE_REQUEST_TTL_DAYS,
  checkMergeable,
  checkSplittable,
  createIdentityPipeline,
  isRetryableRegistryConflict,
  KeyedMutex,
  planMerge,
  planSplit,
  readMergeRequest,
  readSplitRequest,
  type ChangeActor,
  type DemographicsInput,
  type IdentityPipeline,
  type IdentityRecord,
  type MatchResult,
  type MatchType,
  type RegistryChange,
  type ResolveResult,
  type SourceOrigin,
  type StatusTransition,
} from './domain/index.js';
import { appendAudit, listAudit, verifyAudit, type StoredAuditEntry } from './entities/audit-log.js';
import { observeBoundaryHeader } from './entities/boundary-observations.js';
import { decideChangeRequest, getChangeRequest, getChangeRequests, insertChangeRequest, listChangeRequests, type ChangeKind, type ChangeRequest, type ChangeStatus } from './entities/change-requests.js';
import { assertFingerprintKey } from './entities/key-checks.js';
import { addLineage, latestContribution, lineageOf, type LineageEvent } from './entities/lineage.js';
import { historySummaries, recentHistory, recordResolution, type MatchHistoryEntry, type MatchHistorySummary } from './entities/match-history.js';
import { stageEvent } from './entities/outbox.js';
import { partnerLinks, type PartnerLink } from './entities/partner-links.js';
import { confirmSources, inheritConfirmations, sourcesOf, type SourceConfirmation } from './entities/sources.js';
import { SqlIdentityRegistry } from './entities/sql-registry.js';
import { isRetryableDatabaseError, Sql } from './entities/sql.js';
import { loadFingerprintKeyRing } from './fingerprint-key.js';
import { gpidsOf, identityViewer, visibleMatch, visibleResolution, type LinkView } from './identity-viewer.js';

/** The REST path of each write operation, as the boundary-header evidence names it. */
export const WRITE_PATHS = {
  resolve: '/api/identity/resolve',
  merge: '/api/identity/merge',
  split: '/api/identity/split',
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

const DAY_MS = 86_400_000;

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

export interface AppliedChange {
  request: ChangeRequest;
  audit: StoredAuditEntry | null;
}

export class IdentityService {
  readonly sql: Sql;
  readonly registry: SqlIdentityRegistry;
  readonly pipeline: IdentityPipeline;
  private readonly keyRing;

  constructor(private readonly services: SubgraphServices) {
    this.sql = Sql.of(services.orm);
    this.keyRing = loadFingerprintKeyRing(services.runtime.config);
    this.registry = new SqlIdentityRegistry(this.sql, { locks: new KeyedMutex(), effects: (tx, change) => this.resolutionEffects(tx, change) });
    this.pipeline = createIdentityPipeline({ registry: this.registry, keyRing: this.keyRing, newGpid: newPatientGpid });
  }

  /** Refuses to run with a fingerprint key other than the registry's (see key-checks.ts). */
  async start(): Promise<void> {
    const current = this.keyRing.keys.find((k) => k.version === this.keyRing.current)!;
    await assertFingerprintKey(this.sql, current.version, current.secret);
    // Blocking keys are random (HMAC), so index pages are touched all over: on the embedded SQLite
    // file, a 64 MiB page cache (instead of 2 MiB) keeps lookups and inserts off the file system.
    if (!this.sql.postgres) await this.sql.rows('pragma cache_size = -65536');
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

  /** What a resolve writes beside the records, in the same transaction. */
  private async resolutionEffects(tx: Sql, change: RegistryChange): Promise<void> {
    const resolution = change.resolution;
    if (!resolution) return;
    const at = new Date(resolution.at);
    await confirmSources(tx, [resolution.gpid], resolution.source, at);
    await recordResolution(tx, resolution);
    // The events go to the resolving partner: they name other records only if it links to them.
    // A status change of a record it does not link to (duplicate detection) goes to operators only.
    const others = [...new Set([...(resolution.subjectGpid ? [resolution.subjectGpid] : []), ...change.transitions.map((t) => t.gpid)])].filter((g) => g !== resolution.gpid);
    const links = resolution.actorSeesAll || others.length === 0 ? null : await partnerLinks(tx, resolution.actor, others);
    const linked = (gpid: string) => gpid === resolution.gpid || links === null || links.get(gpid)?.linked === true;
    await stageEvent(
      tx,
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
    await this.stageTransitions(tx, change.transitions.filter((t) => linked(t.gpid)), resolution.actor, at);
    await this.stageTransitions(tx, change.transitions.filter((t) => !linked(t.gpid)), null, at);
    if (resolution.actor) await this.observeBoundary(tx, resolution.actor, resolution.via ?? WRITE_PATHS.resolve, resolution.source, at);
  }

  private async stageTransitions(tx: Sql, transitions: readonly StatusTransition[], partnerGpid: string | null, at: Date): Promise<void> {
    for (const t of transitions) {
      if (t.from === null) continue; // a creation is announced by identity.match
      await stageEvent(
        tx,
        makeEvent(IDENTITY_EVENTS.statusChanged, partnerGpid, { event: IDENTITY_EVENTS.statusChanged, gpid: t.gpid, from: t.from, to: t.to, trigger: t.trigger, source: t.source }, at),
      );
    }
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
    const actor = actorOf(principal);
    return this.write(async (tx, registry) => {
      const gpids = [input.survivorGpid, ...input.mergedGpids];
      const records = await IdentityService.existing(registry, gpids, false, await this.visibility(principal, gpids, tx));
      checkMergeable(records.get(input.survivorGpid)!, input.mergedGpids.map((g) => records.get(g)!));
      const now = new Date();
      const request = pendingChangeRequest('merge', { reason: input.reason, note: input.note, survivorGpid: input.survivorGpid, gpids: input.mergedGpids }, actor, source, now);
      await insertChangeRequest(tx, request);
      if (principal.partnerGpid) await this.observeBoundary(tx, principal.partnerGpid, WRITE_PATHS.merge, source, now);
      return request;
    });
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
}
