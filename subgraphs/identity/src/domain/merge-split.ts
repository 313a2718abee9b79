/**
 * Merge and split: the two reviewed corrections of the registry, as pure rules.
 *
 * - A merge folds duplicate records into a survivor: the survivor learns their fingerprints, keys
 *   and source origins (stage 3 skips MERGED records, so the survivor must carry them), the
 *   duplicates become MERGED with `mergedInto` pointing at it. What each duplicate brought that the
 *   survivor did not already have is kept as its *contribution*, so a later split can take it out.
 * - A split undoes a false merge: the MERGED record comes back (status SPLIT) with its own
 *   fingerprints, and the survivor loses that record's contribution.
 *
 * Both need two people: one principal requests, a different one approves (`assertIndependentApprover`).
 * Storage, transactions, audit and events belong to the layer above.
 */
import { DomainError, validationError, type FieldError, isPatientGpid, isSystemGpid } from '@svc/platform';
import { MERGE_REASONS, SPLIT_REASONS, type MergeReason, type SourceOrigin, type SplitReason } from './enums.js';
import { FIELD_NAMES, type FieldName, type FieldSets } from './fields.js';
import { MAX_BLOCKING_KEYS_PER_RECORD, MAX_VALUES_PER_FIELD } from './pipeline.js';
import type { IdentityRecord, RegistryChange, StatusTransition } from './registry.js';
import { assertTransition, canTransition } from './state-machine.js';

/** Most duplicates one merge may fold into its survivor. */
export const MAX_MERGED_PER_REQUEST = 20;
export const MAX_NOTE_LENGTH = 1000;
/** How long a merge or split request waits for its approval. */
export const CHANGE_REQUEST_TTL_DAYS = 7;

export interface MergeRequestInput {
  survivorGpid: string;
  mergedGpids: string[];
  reason: MergeReason;
  note: string | null;
}

export interface SplitRequestInput {
  /** The MERGED GPID to separate from its survivor again. */
  gpid: string;
  reason: SplitReason;
  note: string | null;
}

function isGpid(value: unknown): value is string {
  return isPatientGpid(value) || isSystemGpid(value);
}

function readNote(raw: unknown, errors: FieldError[]): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') errors.push({ field: 'note', message: 'must be a string' });
  else if (raw.length > MAX_NOTE_LENGTH) errors.push({ field: 'note', message: `must be at most ${MAX_NOTE_LENGTH} characters` });
  else return raw.trim() === '' ? null : raw.trim();
  return null;
}

const GPID_MESSAGE = 'must be a GPID (SVC- and 8 uppercase hex characters, or {PRD}-{TYPE}-{N})';

/** Validates a merge request; field names are the REST body's (snake_case). */
export function readMergeRequest(raw: { survivorGpid?: unknown; mergedGpids?: unknown; reason?: unknown; note?: unknown }): MergeRequestInput {
  const errors: FieldError[] = [];
  const survivor = raw.survivorGpid;
  if (survivor === undefined || survivor === null || survivor === '') errors.push({ field: 'survivor_gpid', message: 'is required' });
  else if (!isGpid(survivor)) errors.push({ field: 'survivor_gpid', message: GPID_MESSAGE });

  const merged: string[] = [];
  if (!Array.isArray(raw.mergedGpids) || raw.mergedGpids.length === 0) {
    errors.push({ field: 'merged_gpids', message: 'must list at least one GPID to merge into the survivor' });
  } else if (raw.mergedGpids.length > MAX_MERGED_PER_REQUEST) {
    errors.push({ field: 'merged_gpids', message: `must list at most ${MAX_MERGED_PER_REQUEST} GPIDs` });
  } else {
    raw.mergedGpids.forEach((gpid, i) => {
      if (!isGpid(gpid)) errors.push({ field: `merged_gpids.${i}`, message: GPID_MESSAGE });
      else if (gpid === survivor) errors.push({ field: `merged_gpids.${i}`, message: 'is the survivor: a GPID cannot be merged into itself' });
      else if (merged.includes(gpid)) errors.push({ field: `merged_gpids.${i}`, message: 'is listed twice' });
      else merged.push(gpid);
    });
  }

  const reason = raw.reason;
  if (reason === undefined || reason === null || reason === '') errors.push({ field: 'reason', message: `is required: one of ${MERGE_REASONS.join(', ')}` });
  else if (!(MERGE_REASONS as readonly unknown[]).includes(reason)) errors.push({ field: 'reason', message: `must be one of ${MERGE_REASONS.join(', ')}` });

  const note = readNote(raw.note, errors);
  if (errors.length > 0) throw validationError(errors, 'The merge request has invalid fields.');
  return { survivorGpid: survivor as string, mergedGpids: merged, reason: reason as MergeReason, note };
}

/** Validates a split request; field names are the REST body's (snake_case). */
export function readSplitRequest(raw: { gpid?: unknown; reason?: unknown; note?: unknown }): SplitRequestInput {
  const errors: FieldError[] = [];
  if (raw.gpid === undefined || raw.gpid === null || raw.gpid === '') errors.push({ field: 'gpid', message: 'is required: the MERGED GPID to split from its survivor' });
  else if (!isGpid(raw.gpid)) errors.push({ field: 'gpid', message: GPID_MESSAGE });
  const reason = raw.reason;
  if (reason === undefined || reason === null || reason === '') errors.push({ field: 'reason', message: `is required: one of ${SPLIT_REASONS.join(', ')}` });
  else if (!(SPLIT_REASONS as readonly unknown[]).includes(reason)) errors.push({ field: 'reason', message: `must be one of ${SPLIT_REASONS.join(', ')}` });
  const note = readNote(raw.note, errors);
  if (errors.length > 0) throw validationError(errors, 'The split request has invalid fields.');
  return { gpid: raw.gpid as string, reason: reason as SplitReason, note };
}

// ---------------------------------------------------------------------------------------------
// The two-person rule
// ---------------------------------------------------------------------------------------------

/** Who requested or decided a change, as far as the rule needs to know. */
export interface ChangeActor {
  kind: 'partner' | 'service' | 'portal' | 'anonymous';
  /** The partner (CMS GPID) the credential belongs to; the operator partner for operator credentials. */
  partnerGpid: string | null;
  /** The OAuth client id, else the API token id or portal session id. */
  credentialId: string | null;
  /** Holds the operator scope (cms.admin): a platform data steward. */
  operator: boolean;
}

/**
 * The two-person rule. An approval counts only when the approver is independent of the requester:
 *
 * 1. A different credential: not the same OAuth client, API token or portal session (and both are
 *    identifiable at all).
 * 2. A different accountable party: not the requester's own partner organization, unless the
 *    approver is an operator (a data steward holding cms.admin). Operator credentials all belong to
 *    the operator partner and are issued one per steward, so for them the credential is the person.
 *
 * So a partner can never approve its own request (even with a second token), and an operator can
 * approve another steward's request but never one made with the same credential.
 */
export function assertIndependentApprover(requester: ChangeActor, approver: ChangeActor): void {
  if (!requester.credentialId || !approver.credentialId) {
    throw new DomainError('FORBIDDEN', 'The two-person rule needs identifiable credentials (an API token, OAuth client or portal session) for both the request and the approval.', {
      details: { reason: 'unidentified_credential' },
    });
  }
  if (requester.credentialId === approver.credentialId) {
    throw new DomainError('FORBIDDEN', 'The requester cannot approve their own change: a different principal must approve it (two-person rule).', {
      details: { reason: 'same_credential' },
    });
  }
  if (requester.partnerGpid !== null && requester.partnerGpid === approver.partnerGpid && !approver.operator) {
    throw new DomainError('FORBIDDEN', `A change requested by partner ${requester.partnerGpid} must be approved by another party (an operator or another partner), not by a second credential of the same partner.`, {
      details: { reason: 'same_partner' },
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------------------------

/** What a merged record brought into its survivor, kept so that a split can take it out again. */
export interface MergeContribution {
  fields: FieldSets;
  blockingKeys: string[];
  sources: SourceOrigin[];
}

export interface MergePlan {
  change: RegistryChange;
  survivor: IdentityRecord;
  merged: IdentityRecord[];
  /** By merged GPID. */
  contributions: Map<string, MergeContribution>;
}

export interface SplitPlan {
  change: RegistryChange;
  restored: IdentityRecord;
  survivor: IdentityRecord;
}

function unionBounded(first: readonly string[] | undefined, second: readonly string[] | undefined, max: number): string[] {
  return [...new Set([...(first ?? []), ...(second ?? [])])].slice(0, max);
}

function conflict(message: string, details: Record<string, unknown>): DomainError {
  return new DomainError('CONFLICT', message, { details });
}

/** Checks a merge against the current records (at request time and again at approval). */
export function checkMergeable(survivor: IdentityRecord, merged: readonly IdentityRecord[]): void {
  if (survivor.status === 'MERGED') {
    throw conflict(`The survivor ${survivor.gpid} is itself merged into ${survivor.mergedInto}; merge into that record instead.`, { gpid: survivor.gpid, merged_into: survivor.mergedInto });
  }
  for (const record of merged) {
    if (record.gpid === survivor.gpid) throw validationError([{ field: 'merged_gpids', message: 'a GPID cannot be merged into itself' }]);
    if (record.status === 'MERGED') {
      throw conflict(`${record.gpid} is already merged into ${record.mergedInto}.`, { gpid: record.gpid, merged_into: record.mergedInto });
    }
    if (record.entityType !== survivor.entityType) {
      throw conflict(`${record.gpid} is a ${record.entityType} and ${survivor.gpid} a ${survivor.entityType}: only records of one entity type can be merged.`, { gpid: record.gpid });
    }
    assertTransition(record.status, 'MERGED', 'merge');
  }
}

/**
 * The registry change of a merge: duplicates → MERGED (pointing at the survivor), the survivor
 * learns their fingerprints, keys, sources and review links, and a reviewed survivor that was not
 * ACTIVE becomes ACTIVE (`review_confirmed`: two people confirmed it). `sources` are the origins of
 * the request and the approval, recorded as confirmations of the survivor.
 */
export function planMerge(survivor: IdentityRecord, merged: readonly IdentityRecord[], options: { at: string; sources: readonly SourceOrigin[] }): MergePlan {
  checkMergeable(survivor, merged);
  const mergedGpids = new Set(merged.map((r) => r.gpid));
  const contributions = new Map<string, MergeContribution>();
  const fields: Partial<Record<FieldName, readonly string[]>> = { ...survivor.fields };
  let keys = [...survivor.blockingKeys];
  let sources = [...survivor.sources];
  const links = new Set(survivor.links);

  for (const record of merged) {
    const contribution: MergeContribution = { fields: {}, blockingKeys: [], sources: [] };
    for (const name of FIELD_NAMES) {
      const had = new Set(fields[name] ?? []);
      const brought = (record.fields[name] ?? []).filter((v) => !had.has(v));
      if (brought.length > 0) (contribution.fields as Record<string, string[]>)[name] = brought;
      const union = unionBounded(fields[name], record.fields[name], MAX_VALUES_PER_FIELD);
      if (union.length > 0) fields[name] = union;
    }
    const hadKeys = new Set(keys);
    contribution.blockingKeys = record.blockingKeys.filter((k) => !hadKeys.has(k));
    keys = unionBounded(keys, record.blockingKeys, MAX_BLOCKING_KEYS_PER_RECORD);
    contribution.sources = record.sources.filter((s) => !sources.includes(s));
    sources = [...new Set([...sources, ...record.sources])];
    for (const link of record.links) links.add(link);
    contributions.set(record.gpid, contribution);
  }
  sources = [...new Set([...sources, ...options.sources])];
  links.delete(survivor.gpid);
  for (const gpid of mergedGpids) links.delete(gpid);

  const transitions: StatusTransition[] = [];
  let status = survivor.status;
  if (status !== 'ACTIVE' && canTransition(status, 'ACTIVE', 'review_confirmed')) {
    transitions.push({ gpid: survivor.gpid, from: status, to: 'ACTIVE', trigger: 'review_confirmed', source: options.sources[0] ?? null });
    status = 'ACTIVE';
  }
  const nextSurvivor: IdentityRecord = {
    ...survivor,
    status,
    fields,
    blockingKeys: keys,
    sources,
    links: [...links],
    updatedAt: options.at,
    version: survivor.version + 1,
  };
  const nextMerged = merged.map((record): IdentityRecord => {
    transitions.push({ gpid: record.gpid, from: record.status, to: 'MERGED', trigger: 'merge', source: options.sources[0] ?? null });
    return { ...record, status: 'MERGED', mergedInto: survivor.gpid, updatedAt: options.at, version: record.version + 1 };
  });
  return {
    change: {
      inserts: [],
      updates: [nextSurvivor, ...nextMerged].map((record, i) => ({ record, expectedVersion: i === 0 ? survivor.version : merged[i - 1]!.version })),
      transitions,
    },
    survivor: nextSurvivor,
    merged: nextMerged,
    contributions,
  };
}

/** Checks a split against the current records (at request time and again at approval). */
export function checkSplittable(restored: IdentityRecord, survivor: IdentityRecord | undefined): asserts survivor is IdentityRecord {
  if (restored.status !== 'MERGED' || !restored.mergedInto) {
    throw conflict(`${restored.gpid} is ${restored.status}, not MERGED: only a merged GPID can be split from its survivor.`, { gpid: restored.gpid, status: restored.status });
  }
  if (!survivor || survivor.gpid !== restored.mergedInto) {
    throw conflict(`The survivor ${restored.mergedInto} of ${restored.gpid} is missing.`, { gpid: restored.gpid });
  }
  if (survivor.status === 'MERGED') {
    throw conflict(`The survivor ${survivor.gpid} was merged into ${survivor.mergedInto} afterwards; split ${survivor.gpid} first.`, { gpid: survivor.gpid, merged_into: survivor.mergedInto });
  }
  assertTransition(restored.status, 'SPLIT', 'split');
}

function without(values: readonly string[] | undefined, remove: readonly string[] | undefined): string[] {
  if (!remove || remove.length === 0) return [...(values ?? [])];
  const drop = new Set(remove);
  return (values ?? []).filter((v) => !drop.has(v));
}

/**
 * The registry change of a split: the MERGED record returns as SPLIT with its own fingerprints
 * (it kept them while merged), and the survivor loses what that record contributed at the merge.
 * A value the survivor learned again after the merge, and that equals one of the contribution's,
 * is removed too: the survivor relearns it at its next resolve.
 */
export function planSplit(restored: IdentityRecord, survivor: IdentityRecord | undefined, contribution: MergeContribution | null, options: { at: string; sources: readonly SourceOrigin[] }): SplitPlan {
  checkSplittable(restored, survivor);
  const fields: Partial<Record<FieldName, readonly string[]>> = {};
  for (const name of FIELD_NAMES) {
    const kept = without(survivor.fields[name], contribution?.fields[name]);
    if (kept.length > 0) fields[name] = kept;
  }
  const nextSurvivor: IdentityRecord = {
    ...survivor,
    fields,
    blockingKeys: without(survivor.blockingKeys, contribution?.blockingKeys),
    sources: [...new Set([...without(survivor.sources, contribution?.sources), ...options.sources])] as SourceOrigin[],
    updatedAt: options.at,
    version: survivor.version + 1,
  };
  const nextRestored: IdentityRecord = {
    ...restored,
    status: 'SPLIT',
    mergedInto: null,
    sources: [...new Set([...restored.sources, ...options.sources])],
    updatedAt: options.at,
    version: restored.version + 1,
  };
  return {
    change: {
      inserts: [],
      updates: [
        { record: nextRestored, expectedVersion: restored.version },
        { record: nextSurvivor, expectedVersion: survivor.version },
      ],
      transitions: [{ gpid: restored.gpid, from: 'MERGED', to: 'SPLIT', trigger: 'split', source: options.sources[0] ?? null }],
    },
    restored: nextRestored,
    survivor: nextSurvivor,
  };
}
