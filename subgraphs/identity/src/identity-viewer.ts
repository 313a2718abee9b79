/**
 * Tenant isolation of identity reads: who reads which GPID. An operator (a service principal, or a
 * credential holding cms.admin) reads every identity; a partner reads the identities it has a link
 * to (entities/partner-links.ts). Everything else looks missing: the same null, the same 404, the
 * same `unknown_gpids` as a GPID that does not exist.
 */
import { isOperator, type Principal } from '@svc/platform';
import type { MatchCandidate, MatchResult, ResolveResult, SourceOrigin } from './domain/index.js';
import type { PartnerLink } from './entities/partner-links.js';

export interface IdentityViewer {
  /** Reads every identity. */
  unrestricted: boolean;
  /** The partner whose links count (null: none). */
  partnerGpid: string | null;
}

export function identityViewer(principal: Principal): IdentityViewer {
  return { unrestricted: principal.kind === 'service' || isOperator(principal), partnerGpid: principal.partnerGpid };
}

/** What the viewer sees of the GPIDs of an answer: null for an operator (everything). */
export type LinkView = Map<string, PartnerLink> | null;

const visibleIn = (links: LinkView) => (gpid: string) => links === null || links.get(gpid)?.linked === true;
/** A partner's own source origins of a GPID (those it resolved under); an operator's: all of them. */
const sourcesIn = (links: LinkView, gpid: string, all: readonly SourceOrigin[]): SourceOrigin[] =>
  links === null ? [...all] : (links.get(gpid)?.sources ?? []).map((c) => c.source);

function candidateView(c: MatchCandidate, links: LinkView): MatchCandidate {
  return { ...c, sources: sourcesIn(links, c.gpid, c.sources) };
}

/** A match answer with only the candidates the viewer may see (its match type follows the best one left). */
export function visibleMatch(result: MatchResult, links: LinkView): MatchResult {
  const candidates = result.candidates.filter((c) => visibleIn(links)(c.gpid)).map((c) => candidateView(c, links));
  return { ...result, matchType: candidates[0]?.matchType ?? 'NONE', candidates };
}

/** A resolve answer without the other GPIDs (candidates, review links, subject) the viewer may not see, and with its own sources. */
export function visibleResolution(result: ResolveResult, links: LinkView): ResolveResult {
  const visible = visibleIn(links);
  return {
    ...result,
    sources: sourcesIn(links, result.gpid, result.sources),
    candidates: result.candidates.filter((c) => visible(c.gpid)).map((c) => candidateView(c, links)),
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
