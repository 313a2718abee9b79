/**
 * Stage 3 — registry lookup. Probes the registry with the request's blocking keys (under every key
 * version of the ring) and returns the matchable candidates. MERGED records are skipped: a merge
 * moves their fingerprints to the survivor, which is found instead.
 */
import type { IdentityRegistry, RegistryCandidate } from './registry.js';
import type { DemographicFingerprints } from './stage2-fingerprint.js';
import { isMatchable } from './state-machine.js';

/** Default number of candidates scored per request. */
export const DEFAULT_MAX_CANDIDATES = 50;

export async function lookupCandidates(
  registry: IdentityRegistry,
  probe: DemographicFingerprints,
  maxCandidates = DEFAULT_MAX_CANDIDATES,
): Promise<RegistryCandidate[]> {
  if (probe.blockingKeys.length === 0) return [];
  return matchable(await registry.findByBlockingKeys(probe.blockingKeys, maxCandidates));
}

/** The candidates a lookup keeps (MERGED records are found through their survivor). */
export function matchable(found: readonly RegistryCandidate[]): RegistryCandidate[] {
  return found.filter((c) => isMatchable(c.record.status));
}
