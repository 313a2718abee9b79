/**
 * Tenant isolation of identity reads: who reads which GPID. An operator (a service principal, or a
 * credential holding cms.admin) reads every identity; a partner reads the identities it has a link
 * to (entities/partner-links.ts). Everything else looks missing: the same null, the same 404, the
 * same `unknown_gpids` as a GPID that does not exist.
 */
import { isOperator, type Principal } from '@svc/platform';
import type { MatchCandidate, MatchResult, ResolveResult } from './domain/index.js';

export interface IdentityViewer {
  /** Reads every identity. */
  unrestricted: boolean;
  /** The partner whose links count (null: none). */
  partnerGpid: string | null;
}

export function identityViewer(principal: Principal): IdentityViewer {
  return { unrestricted: principal.kind === 'service' || isOperator(principal), partnerGpid: principal.partnerGpid };
}

/** A match answer with only the candidates the viewer may see (its match type follows the best one left). */
export function visibleMatch(result: MatchResult, visible: (gpid: string) => boolean): MatchResult {
  const candidates = result.candidates.filter((c: MatchCandidate) => visible(c.gpid));
  return { ...result, matchType: candidates[0]?.matchType ?? 'NONE', candidates };
}

/** A resolve answer without the other GPIDs (candidates, review links, subject) the viewer may not see. */
export function visibleResolution(result: ResolveResult, visible: (gpid: string) => boolean): ResolveResult {
  return {
    ...result,
    candidates: result.candidates.filter((c) => visible(c.gpid)),
    links: result.links.filter(visible),
    subjectGpid: result.subjectGpid !== null && visible(result.subjectGpid) ? result.subjectGpid : null,
  };
}

/** Every GPID an answer names (to look their links up in one go). */
export function gpidsOf(result: MatchResult | ResolveResult): string[] {
  const gpids = result.candidates.map((c) => c.gpid);
  if ('links' in result) gpids.push(result.gpid, ...result.links, ...(result.subjectGpid ? [result.subjectGpid] : []));
  return [...new Set(gpids)];
}
