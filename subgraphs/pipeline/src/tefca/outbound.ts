import {
  DomainError,
  isHomeCommunityId,
  tefcaPatientJson,
  validationError,
  type TefcaCapability,
  type TefcaCommunityOutcome,
  type TefcaDocumentContent,
  type TefcaDocumentMetadata,
  type TefcaOutcome,
  type TefcaPatient,
  type TefcaPeer,
  type TefcaPurposeOfUse,
  type TefcaSettings,
} from '@svc/platform';
import type { PeerAnswer, TefcaPeerClient } from './peer-client.js';
import type { TefcaDirectory } from './directory.js';

/**
 * Outbound TEFCA exchanges: the fan-out of one request to the peer communities of the directory,
 * in parallel, each bounded by the exchange's deadline, and the merge of their answers. A peer that
 * is slow or down never holds the answer past the deadline: it is named in `communities` with its
 * status (timeout or error) and the others' answers come back (outcome `partial`).
 */

export interface RemotePatientMatch {
  homeCommunityId: string;
  communityName: string;
  patientId: string;
  matchQuality: number;
  matchGrade: string | null;
}

/** A document found at a peer, with the name of the community that holds it. */
export type RemoteDocument = TefcaDocumentMetadata & { communityName: string };

export interface FanOutResult<R> {
  results: R[];
  communities: (TefcaCommunityOutcome & { name: string })[];
  outcome: TefcaOutcome;
}

/** The peers an exchange goes to: those named (each must be a peer offering the capability), else every one that offers it. */
export function selectPeers(directory: readonly TefcaPeer[], capability: TefcaCapability, named: readonly string[] | null | undefined, field = 'communities'): TefcaPeer[] {
  if (named && named.length > 0) {
    const errors = named.flatMap((id, i) => {
      const peer = directory.find((p) => p.homeCommunityId === id);
      if (!isHomeCommunityId(id)) return [{ field: `${field}.${i}`, message: 'must be a home community id (urn:oid:…)' }];
      if (!peer) return [{ field: `${field}.${i}`, message: 'is not a peer community of the directory' }];
      if (!peer.capabilities.includes(capability)) return [{ field: `${field}.${i}`, message: `does not offer ${capability}` }];
      return [];
    });
    if (errors.length > 0) throw validationError(errors, `${field} names communities this directory cannot reach.`);
    return directory.filter((p) => named.includes(p.homeCommunityId));
  }
  const peers = directory.filter((p) => p.capabilities.includes(capability));
  // Partners read this: it names no setting, only who can change the directory.
  if (peers.length === 0) throw new DomainError('CONFLICT', `No peer community of the directory offers ${capability}: the directory is configured by this service's operator.`);
  return peers;
}

function outcomeOf(communities: readonly TefcaCommunityOutcome[]): TefcaOutcome {
  const ok = communities.filter((c) => c.status === 'ok').length;
  return ok === communities.length ? 'success' : ok > 0 ? 'partial' : 'failure';
}

/** Run `call` against every target at once and merge what `parse` reads of the answers. */
async function fanOut<T, R>(targets: readonly T[], peerOf: (t: T) => TefcaPeer, call: (t: T) => Promise<PeerAnswer>, parse: (t: T, body: unknown) => R[]): Promise<FanOutResult<R>> {
  const answers = await Promise.all(targets.map(async (t) => ({ t, answer: await call(t) })));
  const results: R[] = [];
  const communities: FanOutResult<R>['communities'] = [];
  for (const { t, answer } of answers) {
    const peer = peerOf(t);
    const base = { home_community_id: peer.homeCommunityId, name: peer.name, duration_ms: answer.durationMs };
    if (!answer.ok) {
      communities.push({ ...base, status: answer.status, result_count: 0, error: answer.error });
      continue;
    }
    let parsed: R[];
    try {
      parsed = parse(t, answer.body);
    } catch {
      communities.push({ ...base, status: 'error', result_count: 0, error: 'answer not understood' });
      continue;
    }
    results.push(...parsed);
    communities.push({ ...base, status: 'ok', result_count: parsed.length, error: null });
  }
  return { results, communities, outcome: outcomeOf(communities) };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v.slice(0, 500) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
function list(body: unknown, key: string): Record<string, unknown>[] {
  const value = (body as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(value)) throw new Error(`no ${key}`);
  return value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null).slice(0, 500);
}

export class TefcaOutbound {
  constructor(
    private readonly settings: TefcaSettings,
    private readonly client: TefcaPeerClient,
    private readonly directory: TefcaDirectory,
  ) {}

  private deadline(timeoutMs: number | null | undefined): number {
    return Date.now() + Math.min(timeoutMs ?? this.settings.timeoutMs, this.settings.timeoutMs);
  }

  /** XCPD to the peers: who knows this patient, and under which id. */
  async searchPatients(input: { purpose: TefcaPurposeOfUse; patient: TefcaPatient; communities: readonly string[] | null; timeoutMs: number | null; requestId: string }): Promise<FanOutResult<RemotePatientMatch>> {
    const peers = selectPeers(await this.directory.peers(), 'xcpd', input.communities);
    const deadline = this.deadline(input.timeoutMs);
    const body = { purpose_of_use: input.purpose, requesting_community_id: this.settings.homeCommunityId, patient: tefcaPatientJson(input.patient) };
    return fanOut(
      peers,
      (p) => p,
      (p) => this.client.post(p, '/tefca/xcpd/discover', body, deadline, input.requestId),
      (p, answer) =>
        list(answer, 'matches').flatMap((m) => {
          const patientId = str(m['patient_id']);
          if (!patientId) return [];
          return [{ homeCommunityId: p.homeCommunityId, communityName: p.name, patientId, matchQuality: num(m['match_quality']) ?? 0, matchGrade: str(m['match_grade']) }];
        }),
    );
  }

  /** XCA ITI-38 to the peers: the documents of the patients, each at its own community. */
  async searchDocuments(input: { purpose: TefcaPurposeOfUse; patients: readonly { homeCommunityId: string; patientId: string }[]; typeCodes: readonly string[] | null; timeoutMs: number | null; requestId: string }): Promise<FanOutResult<RemoteDocument>> {
    if (input.patients.length === 0) throw validationError([{ field: 'patients', message: 'name at least one patient: { home_community_id, patient_id }' }]);
    if (input.patients.length > 50) throw validationError([{ field: 'patients', message: 'at most 50 patients' }]);
    const errors = input.patients.flatMap((p, i) => (typeof p.patientId !== 'string' || p.patientId === '' || p.patientId.length > 100 ? [{ field: `patients.${i}.patient_id`, message: 'is required (at most 100 characters)' }] : []));
    if (errors.length > 0) throw validationError(errors);
    const peers = selectPeers(await this.directory.peers(), 'xca', input.patients.map((p) => p.homeCommunityId), 'patients.home_community_id');
    const targets = input.patients.map((p) => ({ ...p, peer: peers.find((x) => x.homeCommunityId === p.homeCommunityId)! }));
    const deadline = this.deadline(input.timeoutMs);
    return fanOut(
      targets,
      (t) => t.peer,
      (t) =>
        this.client.post(
          t.peer,
          '/tefca/xca/query',
          { purpose_of_use: input.purpose, requesting_community_id: this.settings.homeCommunityId, patient_id: t.patientId, ...(input.typeCodes?.length ? { type_codes: input.typeCodes } : {}) },
          deadline,
          input.requestId,
        ),
      (t, answer) =>
        list(answer, 'documents').flatMap((d) => {
          const documentId = str(d['document_id']);
          const repositoryId = str(d['repository_id']);
          if (!documentId || !repositoryId) return [];
          return [
            {
              homeCommunityId: t.peer.homeCommunityId,
              communityName: t.peer.name,
              repositoryId,
              documentId,
              patientId: t.patientId,
              title: str(d['title']),
              typeCode: str(d['type_code']),
              typeSystem: str(d['type_system']),
              typeDisplay: str(d['type_display']),
              contentType: str(d['content_type']),
              created: str(d['created']),
              size: num(d['size']),
              hash: str(d['hash']),
            },
          ];
        }),
    );
  }

  /** XCA ITI-39 at one peer. A peer that fails is a 503 naming it; a document it does not have, a 404. */
  async retrieve(input: { purpose: TefcaPurposeOfUse; homeCommunityId: string; repositoryId: string; documentId: string; timeoutMs: number | null; requestId: string }): Promise<{ content: TefcaDocumentContent; community: TefcaCommunityOutcome }> {
    const [peer] = selectPeers(await this.directory.peers(), 'xca', [input.homeCommunityId], 'home_community_id');
    const answer = await this.client.post(
      peer!,
      '/tefca/xca/retrieve',
      { purpose_of_use: input.purpose, requesting_community_id: this.settings.homeCommunityId, home_community_id: input.homeCommunityId, repository_id: input.repositoryId, document_id: input.documentId },
      this.deadline(input.timeoutMs),
      input.requestId,
    );
    if (!answer.ok) {
      if (answer.error.startsWith('HTTP 404')) throw new DomainError('NOT_FOUND', `Community ${input.homeCommunityId} has no document ${input.documentId.slice(0, 64)} in repository ${input.repositoryId.slice(0, 80)}.`);
      throw new DomainError('UPSTREAM_UNAVAILABLE', `Community ${input.homeCommunityId} did not answer the retrieve: ${answer.error}.`, {
        details: { home_community_id: input.homeCommunityId, community_status: answer.status, community_error: answer.error },
      });
    }
    const b = answer.body as Record<string, unknown>;
    const data = str(b['data']) === null ? null : (b['data'] as string);
    if (data === null) throw new DomainError('UPSTREAM_UNAVAILABLE', `Community ${input.homeCommunityId} answered the retrieve without content.`, { details: { home_community_id: input.homeCommunityId } });
    return {
      content: { homeCommunityId: input.homeCommunityId, repositoryId: input.repositoryId, documentId: input.documentId, contentType: str(b['content_type']) ?? 'application/octet-stream', data, size: num(b['size']) ?? Buffer.from(data, 'base64').length },
      community: { home_community_id: input.homeCommunityId, status: 'ok', duration_ms: answer.durationMs, result_count: 1, error: null },
    };
  }
}
