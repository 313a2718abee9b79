import { makeEvent, type EventEnvelope } from '../events/envelope.js';
import { newId } from '../ids.js';
import type { TefcaPurposeOfUse } from './purpose-of-use.js';

/**
 * The TEFCA exchange vocabulary every part shares: community ids, the capabilities of a community,
 * and the one record an exchange leaves (the payload of the `tefca.*` events, and the row of the
 * audit log the pipeline subgraph projects from them).
 */

/**
 * Our home community id when the operator sets none. `2.999` is the joint ISO/ITU-T arc reserved for
 * examples (ITU-T X.660 / ISO/IEC 9834-1, "example" arc), so this id can never collide with a real
 * community: a deployment on the network sets `SVC_TEFCA_HOME_COMMUNITY_ID` to the OID its QHIN
 * assigned (TEFCA QHIN Technical Framework: home community ids are OIDs in `urn:oid:` form, as IHE
 * XCA/XCPD carry them).
 */
export const DEFAULT_HOME_COMMUNITY_ID = 'urn:oid:2.999.1';
export const DEFAULT_HOME_COMMUNITY_NAME = 'Home community';

/** `urn:oid:` and a dotted OID (IHE ITI TF-3 4.2.3.2.12: homeCommunityId is an OID URN). */
export const HOME_COMMUNITY_ID_RE = /^urn:oid:[0-2](\.(0|[1-9]\d{0,18})){1,40}$/;

export function isHomeCommunityId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 200 && HOME_COMMUNITY_ID_RE.test(value);
}

/** What a community answers: patient discovery (XCPD, ITI-55) and document query/retrieve (XCA, ITI-38/39). */
export const TEFCA_CAPABILITIES = ['xcpd', 'xca'] as const;
export type TefcaCapability = (typeof TEFCA_CAPABILITIES)[number];

/** A peer community of the network directory. `token` is the bearer credential it issued to us. */
export interface TefcaPeer {
  homeCommunityId: string;
  name: string;
  baseUrl: string;
  capabilities: readonly TefcaCapability[];
  /** Never shown, never logged. */
  token: string | null;
  /** The built-in sandbox peer (synthetic sample data, never in production). */
  sandbox?: boolean;
}

/** Which transaction an exchange was. */
export type TefcaExchangeKind = 'xcpd' | 'xca.query' | 'xca.retrieve';
export type TefcaDirection = 'inbound' | 'outbound';
/** success: every community asked answered; partial: some did; failure: none (or refused). */
export type TefcaOutcome = 'success' | 'partial' | 'failure';

/** One community's part in an outbound exchange. */
export interface TefcaCommunityOutcome {
  home_community_id: string;
  status: 'ok' | 'error' | 'timeout';
  duration_ms: number;
  result_count: number;
  /** Why it failed (never a body the peer sent: that could hold health data). */
  error: string | null;
}

/**
 * The payload of every `tefca.*` event: who, why, whom it asked, what came of it, how long it took.
 * Ids, codes and counts only, never demographics or document content.
 */
// A type alias, not an interface, so that it is assignable to the envelope's Record<string, unknown>.
export type TefcaExchangeRecord = {
  event: string;
  exchange_id: string;
  kind: TefcaExchangeKind;
  direction: TefcaDirection;
  purpose_of_use: TefcaPurposeOfUse | null;
  /** The community that asked (inbound: the peer's, as it declared it; outbound: ours). */
  requesting_community_id: string | null;
  /** The community that answered (inbound: ours). */
  responding_community_ids: string[];
  communities: TefcaCommunityOutcome[];
  outcome: TefcaOutcome;
  result_count: number;
  error_code: string | null;
  partner_gpid: string | null;
  credential_id: string | null;
  request_id: string;
  started_at: string;
  duration_ms: number;
};

export function newExchangeId(): string {
  return newId('xch');
}

/** The event of a finished (or refused) exchange. */
export function tefcaExchangeEvent(type: string, record: Omit<TefcaExchangeRecord, 'event'>, at: Date = new Date()): EventEnvelope<TefcaExchangeRecord> {
  const data: TefcaExchangeRecord = { event: type, ...record };
  return makeEvent(type, record.partner_gpid, data, at);
}

/** The event type of an exchange by kind, direction and outcome (the names of the event catalog). */
export function tefcaEventType(kind: TefcaExchangeKind, direction: TefcaDirection, outcome: TefcaOutcome): string {
  if (kind === 'xca.retrieve') return outcome === 'failure' ? 'tefca.xca.retrieve.failed' : 'tefca.xca.retrieve.completed';
  if (direction === 'inbound') return kind === 'xcpd' ? 'tefca.xcpd.discovery.received' : 'tefca.xca.query.received';
  const base = kind === 'xcpd' ? 'tefca.xcpd.query' : 'tefca.xca.query';
  return outcome === 'failure' ? `${base}.failed` : `${base}.completed`;
}

export const TEFCA_REFUSED_EVENT = 'tefca.exchange.refused';
