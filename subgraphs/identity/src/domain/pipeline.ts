/**
 * The six-stage identity pipeline, composed:
 *
 *   1 demographics input  → stage1-demographics.ts   validate and parse name, DOB, email, phone
 *   2 fingerprint         → stage2-fingerprint.ts    normalize, keyed HMAC-SHA256 fingerprints
 *   3 registry lookup     → stage3-lookup.ts         candidates by blocking key
 *   4 confidence score    → stage4-score.ts          Fellegi–Sunter confidence in [0, 1]
 *   5 GPID assignment     → stage5-assign.ts         existing, or new SHADOW/PROVISIONAL/CONFLICT
 *   6 dual verification   → stage6-verification.ts   ACTIVE once two source origins agree
 *
 * Match runs stages 1–4 and writes nothing. Resolve runs all six and commits one atomic change to
 * the registry, retrying on a concurrent write.
 */
import { DomainError, validationError } from '@svc/platform';
import { isSourceOrigin, SOURCE_PRODUCT_CODES, type IdentityStatus, type MatchType, type SourceOrigin } from './enums.js';
import { entityTypeById, formatSystemGpid, isEntityTypeId, type EntityTypeId } from './entity-types.js';
import { FIELD_NAMES, type FieldName } from './fields.js';
import { Fingerprinter, type FingerprintKeyRing } from './fingerprint.js';
import type { DayMonthOrder } from './normalize/dob.js';
import type { CountryCode } from './normalize/phone.js';
import {
  isRetryableRegistryConflict,
  type IdentityRecord,
  type IdentityRegistry,
  type RegistryCandidate,
  type RegistryChange,
  type ResolutionOutcome,
  type StatusTransition,
} from './registry.js';
import { readDemographics, type DemographicsInput, type DemographicWarning } from './stage1-demographics.js';
import { fingerprintDemographics, type DemographicFingerprints } from './stage2-fingerprint.js';
import { DEFAULT_MAX_CANDIDATES, lookupCandidates, matchable } from './stage3-lookup.js';
import {
  DEFAULT_SCORING_MODEL,
  scoreCandidates,
  type Agreement,
  type ScoredCandidate,
  type ScoringModel,
} from './stage4-score.js';
import { reviewCandidates as queuedCandidates } from './review-queue.js';
import { decideResolution, isReviewable, resolveThresholds, type ResolveDecisionKind, type ResolveThresholds } from './stage5-assign.js';
import { verifySources } from './stage6-verification.js';
import { canTransition } from './state-machine.js';

export interface IdentityPipelineOptions {
  registry: IdentityRegistry;
  /** Fingerprint keys; `current` signs new fingerprints, all are probed. */
  keyRing: FingerprintKeyRing;
  /** GPID generator for new records (the platform's `newPatientGpid`). */
  newGpid: () => string;
  now?: () => Date;
  /** Country of national phone numbers. Default US. */
  defaultCountry?: CountryCode;
  /** Reading of ambiguous numeric dates (03/04/1980). Default MDY. */
  dobOrder?: DayMonthOrder;
  /** Stage 4's thresholds and stage 5's review threshold. */
  thresholds?: Partial<ResolveThresholds>;
  /**
   * The scoring model, or where to get the active one for each request (the storage layer's cache
   * of its model versions: it must answer from memory on the hot path). Default: version 1.
   */
  model?: ScoringModel | (() => ScoringModel | Promise<ScoringModel>);
  /** Candidates fetched and scored per request. Default 50. */
  maxCandidates?: number;
  /** Candidates returned by Match. Default 10. */
  maxResults?: number;
}

export interface MatchCandidate {
  gpid: string;
  status: IdentityStatus;
  /** Confidence in [0, 1], four decimals. */
  confidence: number;
  matchType: MatchType;
  agreement: Agreement;
  sources: SourceOrigin[];
}

export interface MatchResult {
  /** The best candidate's match type; NONE without candidates. */
  matchType: MatchType;
  /** Best first. */
  candidates: MatchCandidate[];
  /** Optional fields that were invalid and dropped (not strict). */
  warnings: DemographicWarning[];
}

export interface MatchOptions {
  /** Which of the 22 entity types to match among. Default `patient`. */
  entityType?: EntityTypeId | string | null;
  /** Refuse an invalid email or phone instead of dropping it with a warning. Default false. */
  strict?: boolean | null;
}

export interface ResolveContext extends MatchOptions {
  /** Source origin of the caller (the X-Svc-Source header). */
  source: SourceOrigin | string | null | undefined;
  /** Opaque reference of who asks (the partner GPID), handed to storage with the decision. */
  actor?: string | null;
  /** Opaque to the domain: whether the actor may see every record (an operator); handed to storage with the decision. */
  actorSeesAll?: boolean;
  /** Opaque to the domain: the write path the request came through; handed to storage with the decision. */
  via?: string;
}

export interface ResolveResult {
  gpid: string;
  entityType: EntityTypeId;
  status: IdentityStatus;
  created: boolean;
  decision: ResolveDecisionKind;
  /** DETERMINISTIC or PARTIAL when an existing record was returned; NONE for a new record. */
  matchType: MatchType;
  /** Confidence of the returned record's match; for a new record, of the best candidate (0 if none). */
  confidence: number;
  /** Related GPIDs recorded for review (PROVISIONAL and CONFLICT). */
  links: string[];
  /** The existing GPID the subject matched (see `ResolutionOutcome.subjectGpid`). */
  subjectGpid: string | null;
  /** Candidates at or above the review threshold, best first (a new record is linked to those not linked automatically). */
  candidates: MatchCandidate[];
  /** Every status change this resolve made, creation included. */
  transitions: StatusTransition[];
  sources: SourceOrigin[];
  /** Optional fields that were invalid and dropped (not strict). */
  warnings: DemographicWarning[];
}

/** One resolve of `resolveAll`. */
export interface ResolveRequest {
  input: DemographicsInput;
  context: ResolveContext;
}

/** What `resolveAll` made of one request: its result, or why it was refused (nothing written for it). */
export type ResolveOutcome = { result: ResolveResult; refused?: undefined } | { result?: undefined; refused: DomainError };

/**
 * The caller's part of a `resolveAll` unit of work. Every hook gets the registry bound to the unit
 * (its transaction). `start` runs at the beginning of each attempt (the registry may run the unit
 * again after a retryable conflict: what the caller gathered for an earlier attempt is void),
 * `resolved` after each request in order, `finish` once after the last one, before the unit commits.
 */
export interface ResolveAllHooks<T> {
  start?(registry: IdentityRegistry): void;
  resolved?(registry: IdentityRegistry, outcome: ResolveOutcome, index: number): Promise<void> | void;
  finish(registry: IdentityRegistry, outcomes: readonly ResolveOutcome[]): Promise<T>;
}

export interface IdentityPipeline {
  /** Stages 1–4: candidates with confidence and match type. Query only. */
  match(input: DemographicsInput, options?: MatchOptions): Promise<MatchResult>;
  /** Stages 1–6: the GPID of these demographics, existing or new. */
  resolve(input: DemographicsInput, context: ResolveContext): Promise<ResolveResult>;
  /**
   * Stages 1–6 for several requests, in order, as one unit of work (one transaction holding the
   * blocking keys of them all): each request sees what the ones before it wrote, so the outcomes
   * are those of resolving them one after the other (two requests of one person end at one GPID).
   * A request refused by stages 1–2 (invalid demographics, source or entity type) gets its error as
   * its outcome and writes nothing; any other failure fails the whole unit (nothing is written).
   * The candidates of all requests are read at once where the registry can
   * (`findByBlockingKeysMany`); a request whose candidates an earlier request of the unit changed
   * (a record it wrote, or a key it indexed) reads its own again.
   */
  resolveAll<T>(requests: readonly ResolveRequest[], hooks: ResolveAllHooks<T>): Promise<{ outcomes: ResolveOutcome[]; finished: T }>;
}

/** Most fingerprints kept per field of one record (several spellings, emails, phones). */
export const MAX_VALUES_PER_FIELD = 64;
/** Most blocking keys kept per record. */
export const MAX_BLOCKING_KEYS_PER_RECORD = 512;
const MAX_COMMIT_ATTEMPTS = 4;

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function toMatchCandidate(c: ScoredCandidate): MatchCandidate {
  return {
    gpid: c.gpid,
    status: c.status,
    confidence: round4(c.confidence),
    matchType: c.matchType,
    agreement: c.agreement,
    sources: [...c.sources],
  };
}

/** Union of two value lists, newest first, bounded. */
function unionBounded(newest: readonly string[] | undefined, older: readonly string[] | undefined, max: number): string[] {
  return [...new Set([...(newest ?? []), ...(older ?? [])])].slice(0, max);
}

function mergeFingerprints(record: IdentityRecord, fresh: DemographicFingerprints): Pick<IdentityRecord, 'fields' | 'blockingKeys'> {
  const fields: Partial<Record<FieldName, readonly string[]>> = {};
  for (const name of FIELD_NAMES) {
    const merged = unionBounded(fresh.fields[name], record.fields[name], MAX_VALUES_PER_FIELD);
    if (merged.length > 0) fields[name] = merged;
  }
  return { fields, blockingKeys: unionBounded(fresh.blockingKeys, record.blockingKeys, MAX_BLOCKING_KEYS_PER_RECORD) };
}

function checkSource(source: ResolveContext['source']): SourceOrigin {
  if (source === undefined || source === null || source === '') {
    throw new DomainError('MISSING_SOURCE_HEADER', 'Resolve needs the caller source origin (X-Svc-Source).');
  }
  if (!isSourceOrigin(source)) {
    throw validationError([
      { field: 'source', message: 'must be one of pulse, provider, lake, cms, beacon, prime, catalyst, tefca' },
    ]);
  }
  return source;
}

function checkEntityType(value: MatchOptions['entityType']): EntityTypeId {
  if (value === undefined || value === null || value === '') return 'patient';
  if (!isEntityTypeId(value)) {
    throw validationError([{ field: 'entity_type', message: 'must be one of the 22 entity types (patient, practitioner, organization, …, service)' }]);
  }
  return value;
}

/**
 * Keeps the entity types apart: blocking keys of non-patient entities are prefixed with the type
 * code, so a lookup only ever meets records of its own type (patient keys stay unprefixed).
 */
function scopeToEntityType(fingerprints: DemographicFingerprints, entityType: EntityTypeId): DemographicFingerprints {
  if (entityType === 'patient') return fingerprints;
  const code = entityTypeById(entityType)!.code;
  return { fields: fingerprints.fields, blockingKeys: fingerprints.blockingKeys.map((key) => `${code}|${key}`) };
}

/** A resolve after stages 1–2. */
interface PreparedResolve {
  source: SourceOrigin;
  entityType: EntityTypeId;
  actor: { id: string | null; seesAll: boolean; via?: string };
  fingerprints: { write: DemographicFingerprints; probe: DemographicFingerprints };
  warnings: DemographicWarning[];
  lockKeys: string[];
}

/** Builds the pipeline over a registry. Stateless apart from the registry. */
export function createIdentityPipeline(options: IdentityPipelineOptions): IdentityPipeline {
  const fingerprinter = new Fingerprinter(options.keyRing);
  const thresholds: ResolveThresholds = resolveThresholds(options.thresholds);
  const modelOption = options.model ?? DEFAULT_SCORING_MODEL;
  const currentModel = typeof modelOption === 'function' ? modelOption : () => modelOption;
  const now = options.now ?? (() => new Date());
  const maxCandidates = options.maxCandidates ?? DEFAULT_MAX_CANDIDATES;
  const maxResults = options.maxResults ?? 10;
  const registry = options.registry;

  /** Stages 1 and 2: validated demographics turned into keyed fingerprints. */
  function prepare(input: DemographicsInput, purpose: 'match' | 'resolve', entityType: EntityTypeId, strict: boolean) {
    const { value: demographics, warnings } = readDemographics(input, {
      purpose,
      strict,
      now: now(),
      defaultCountry: options.defaultCountry ?? 'US',
      dobOrder: options.dobOrder ?? 'MDY',
    });
    const { write, probe } = fingerprintDemographics(demographics, fingerprinter);
    return { write: scopeToEntityType(write, entityType), probe: scopeToEntityType(probe, entityType), warnings };
  }

  /** Stages 3 and 4: candidates from the registry, scored, best first. */
  async function candidatesFor(from: IdentityRegistry, probe: DemographicFingerprints, entityType: EntityTypeId, prefetched?: readonly RegistryCandidate[]) {
    const found = (prefetched ? matchable(prefetched) : await lookupCandidates(from, probe, maxCandidates)).filter((c) => c.record.entityType === entityType);
    return { found, scored: scoreCandidates(probe.fields, found, { model: await currentModel(), thresholds }) };
  }

  /** Stage 5's GPID for a new record: a patient GPID, or the next system GPID of (product, type). */
  async function allocateGpid(from: IdentityRegistry, entityType: EntityTypeId, source: SourceOrigin): Promise<string> {
    if (entityType === 'patient') return options.newGpid();
    const product = SOURCE_PRODUCT_CODES[source];
    return formatSystemGpid(product, entityType, await from.nextSequence(product, entityType));
  }

  async function match(input: DemographicsInput, matchOptions: MatchOptions = {}): Promise<MatchResult> {
    const entityType = checkEntityType(matchOptions.entityType);
    const { probe, warnings } = prepare(input, 'match', entityType, matchOptions.strict === true);
    const { scored } = await candidatesFor(registry, probe, entityType);
    const candidates = scored.filter((c) => c.deterministic || c.confidence >= thresholds.candidateFloor).slice(0, maxResults);
    return { matchType: candidates[0]?.matchType ?? 'NONE', candidates: candidates.map(toMatchCandidate), warnings };
  }

  /** Stages 1–2 of a resolve and what it needs after them; throws what stages 1–2 refuse. */
  function prepareResolve(input: DemographicsInput, context: ResolveContext): PreparedResolve {
    const source = checkSource(context.source);
    const entityType = checkEntityType(context.entityType);
    const actor = { id: context.actor ?? null, seesAll: context.actorSeesAll ?? false, ...(context.via ? { via: context.via } : {}) };
    const { warnings, ...fingerprints } = prepare(input, 'resolve', entityType, context.strict === true);
    // Every key this resolve reads or writes: a concurrent resolve of the same person shares some.
    const lockKeys = [...new Set([...fingerprints.probe.blockingKeys, ...fingerprints.write.blockingKeys])];
    return { source, entityType, actor, fingerprints, warnings, lockKeys };
  }

  async function resolve(input: DemographicsInput, context: ResolveContext): Promise<ResolveResult> {
    const { source, entityType, actor, fingerprints, warnings, lockKeys } = prepareResolve(input, context);
    const result = await (registry.exclusive
      ? registry.exclusive(lockKeys, (bound) => resolveIn(bound, fingerprints, source, entityType, actor))
      : resolveIn(registry, fingerprints, source, entityType, actor));
    return { ...result, warnings };
  }

  async function resolveAll<T>(requests: readonly ResolveRequest[], hooks: ResolveAllHooks<T>): Promise<{ outcomes: ResolveOutcome[]; finished: T }> {
    const prepared = requests.map((request): PreparedResolve | DomainError => {
      try {
        return prepareResolve(request.input, request.context);
      } catch (error) {
        if (error instanceof DomainError) return error;
        throw error;
      }
    });
    const lockKeys = [...new Set(prepared.flatMap((p) => (p instanceof DomainError ? [] : p.lockKeys)))];
    const unit = async (bound: IdentityRegistry) => {
      hooks.start?.(bound);
      const toResolve = prepared.filter((p): p is PreparedResolve => !(p instanceof DomainError));
      const prefetched = bound.findByBlockingKeysMany && toResolve.length > 1 ? await bound.findByBlockingKeysMany(toResolve.map((p) => p.fingerprints.probe.blockingKeys), maxCandidates) : null;
      // What the requests of this unit wrote so far: a later request whose candidates they touch reads its own.
      const writtenGpids = new Set<string>();
      const writtenKeys = new Set<string>();
      const tracked: IdentityRegistry = {
        findByBlockingKeys: (keys, limit) => bound.findByBlockingKeys(keys, limit),
        get: (gpid) => bound.get(gpid),
        nextSequence: (product, type) => bound.nextSequence(product, type),
        commit: async (change) => {
          await bound.commit(change);
          for (const record of [...change.inserts, ...change.updates.map((u) => u.record)]) {
            writtenGpids.add(record.gpid);
            for (const key of record.blockingKeys) writtenKeys.add(key);
          }
        },
      };
      const outcomes: ResolveOutcome[] = [];
      let next = 0;
      for (const p of prepared) {
        let outcome: ResolveOutcome;
        if (p instanceof DomainError) outcome = { refused: p };
        else {
          const mine = prefetched?.[next++];
          const fresh = mine !== undefined && !mine.some((c) => writtenGpids.has(c.record.gpid)) && !p.fingerprints.probe.blockingKeys.some((k) => writtenKeys.has(k));
          const result = await resolveIn(tracked, p.fingerprints, p.source, p.entityType, p.actor, fresh ? mine : undefined);
          outcome = { result: { ...result, warnings: p.warnings } };
        }
        await hooks.resolved?.(bound, outcome, outcomes.length);
        outcomes.push(outcome);
      }
      return { outcomes, finished: await hooks.finish(bound, outcomes) };
    };
    return registry.exclusive ? registry.exclusive(lockKeys, unit) : unit(registry);
  }

  async function resolveIn(
    from: IdentityRegistry,
    fingerprints: { write: DemographicFingerprints; probe: DemographicFingerprints },
    source: SourceOrigin,
    entityType: EntityTypeId,
    actor: { id: string | null; seesAll: boolean; via?: string },
    prefetched?: readonly RegistryCandidate[],
  ): Promise<Omit<ResolveResult, 'warnings'>> {
    for (let attempt = 1; ; attempt++) {
      // Candidates read for the whole unit serve the first attempt only: a retry reads them again.
      const { found, scored } = await candidatesFor(from, fingerprints.probe, entityType, attempt === 1 ? prefetched : undefined);
      const records = new Map(found.map((c) => [c.record.gpid, c.record]));
      // The GPID of a new record is allocated after the decision (system GPIDs come from storage).
      const decided = decideResolution(scored, { newGpid: () => '', thresholds, households: entityType === 'patient' });
      const decision = decided.kind === 'EXISTING' ? decided : { ...decided, gpid: await allocateGpid(from, entityType, source) };
      const at = now().toISOString();
      const transitions: StatusTransition[] = [];
      const change: { inserts: IdentityRecord[]; updates: Array<{ record: IdentityRecord; expectedVersion: number }> } = {
        inserts: [],
        updates: [],
      };
      const reviewCandidates = scored.filter((c) => isReviewable(c, thresholds)).map(toMatchCandidate);
      let result: Omit<ResolveResult, 'warnings'>;

      if (decision.kind === 'EXISTING') {
        const stored = records.get(decision.gpid)!;
        const verified = verifySources(stored, source);
        if (verified.activated) {
          transitions.push({ gpid: stored.gpid, from: stored.status, to: 'ACTIVE', trigger: 'dual_verification', source });
        }
        change.updates.push({
          record: {
            ...stored,
            ...mergeFingerprints(stored, fingerprints.write),
            status: verified.status,
            sources: verified.sources,
            updatedAt: at,
            version: stored.version + 1,
          },
          expectedVersion: stored.version,
        });
        result = {
          gpid: stored.gpid,
          entityType,
          status: verified.status,
          created: false,
          decision: decision.kind,
          matchType: decision.matchType,
          confidence: round4(decision.confidence),
          links: [...stored.links],
          subjectGpid: stored.gpid,
          candidates: reviewCandidates,
          transitions,
          sources: verified.sources,
        };
      } else {
        const links = decision.kind === 'NEW_SHADOW' ? [] : decision.links;
        const status = decision.status;
        const record: IdentityRecord = {
          gpid: decision.gpid,
          entityType,
          status,
          fields: fingerprints.write.fields,
          blockingKeys: fingerprints.write.blockingKeys,
          sources: [source],
          links,
          mergedInto: null,
          createdAt: at,
          updatedAt: at,
          version: 1,
        };
        change.inserts.push(record);
        transitions.push({ gpid: record.gpid, from: null, to: status, trigger: 'created', source });
        // Back-links on the related records; strong ones are flagged as conflicting duplicates.
        for (const gpid of links) {
          const other = records.get(gpid);
          if (!other) continue;
          let otherStatus = other.status;
          if (decision.kind === 'NEW_CONFLICT' && canTransition(other.status, 'CONFLICT', 'duplicate_detected')) {
            otherStatus = 'CONFLICT';
            transitions.push({ gpid, from: other.status, to: 'CONFLICT', trigger: 'duplicate_detected', source });
          }
          const otherLinks = [...new Set([...other.links, record.gpid, ...(decision.kind === 'NEW_CONFLICT' ? links.filter((g) => g !== gpid) : [])])];
          change.updates.push({
            record: { ...other, status: otherStatus, links: otherLinks, updatedAt: at, version: other.version + 1 },
            expectedVersion: other.version,
          });
        }
        result = {
          gpid: record.gpid,
          entityType,
          status,
          created: true,
          decision: decision.kind,
          matchType: 'NONE',
          confidence: round4(scored[0]?.confidence ?? 0),
          links: [...links],
          subjectGpid: links[0] ?? null,
          candidates: reviewCandidates,
          transitions,
          sources: [source],
        };
      }

      const resolution: ResolutionOutcome = {
        gpid: result.gpid,
        entityType,
        status: result.status,
        decision: result.decision,
        matchType: result.matchType,
        confidence: result.confidence,
        created: result.created,
        subjectGpid: result.subjectGpid,
        source,
        actor: actor.id,
        actorSeesAll: actor.seesAll,
        ...(actor.via ? { via: actor.via } : {}),
        at,
        ...(result.created && result.links.length > 0 ? { review: queuedCandidates(result.links, scored) } : {}),
        ...(decision.kind === 'EXISTING' && decision.review.length > 0 ? { review: queuedCandidates(decision.review, scored) } : {}),
        observed: fingerprints.write,
      };
      const commit: RegistryChange = { ...change, transitions, resolution };
      try {
        await from.commit(commit);
        return result;
      } catch (error) {
        if (attempt < MAX_COMMIT_ATTEMPTS && isRetryableRegistryConflict(error)) continue;
        throw error;
      }
    }
  }

  return { match, resolve, resolveAll };
}

