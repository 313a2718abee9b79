import { SANDBOX_PEER_COMMUNITY_ID } from './sandbox-peer.js';
import { DEFAULT_HOME_COMMUNITY_ID, DEFAULT_HOME_COMMUNITY_NAME, isHomeCommunityId, TEFCA_CAPABILITIES, type TefcaCapability, type TefcaPeer } from './exchange.js';

/** TEFCA exchange settings (`SVC_TEFCA_*`), read by `loadConfig`. */
export interface TefcaSettings {
  /** Our home community id (`SVC_TEFCA_HOME_COMMUNITY_ID`, an `urn:oid:` URN). */
  homeCommunityId: string;
  homeCommunityName: string;
  /**
   * The network endpoint seed (`SVC_TEFCA_PEERS`, a JSON array): the peer communities outbound
   * exchanges go to, `[{ "home_community_id", "name", "base_url", "capabilities": ["xcpd","xca"],
   * "token" }]`. `token` is the bearer credential the peer issued to this community.
   */
  peers: readonly TefcaPeer[];
  /** How long an outbound exchange waits for the peers, in all (`SVC_TEFCA_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Reach peers on private, loopback and link-local addresses (`SVC_TEFCA_ALLOW_PRIVATE`; tests, closed networks). */
  allowPrivateAddresses: boolean;
  /**
   * Serve the built-in sandbox peer community: true when `SVC_ENVIRONMENT` is not `production` and
   * `SVC_TEFCA_PEERS` names no peer, so that a fresh sandbox has a community to exchange with. It
   * answers from synthetic sample data only and is never present in production.
   */
  sandboxPeer: boolean;
}

type IntReader = (name: string, fallback: number, min: number, max: number) => number;

/** Parse the peer list; every problem names the entry and field. */
export function parseTefcaPeers(value: string | undefined, home: string, problems: string[]): TefcaPeer[] {
  if (value === undefined) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    problems.push('SVC_TEFCA_PEERS must be a JSON array of peer communities');
    return [];
  }
  if (!Array.isArray(raw)) {
    problems.push('SVC_TEFCA_PEERS must be a JSON array of peer communities');
    return [];
  }
  const peers: TefcaPeer[] = [];
  const seen = new Set<string>();
  raw.forEach((entry: unknown, i) => {
    const at = `SVC_TEFCA_PEERS[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${at} must be an object`);
      return;
    }
    const e = entry as Record<string, unknown>;
    const id = e['home_community_id'];
    if (!isHomeCommunityId(id)) return void problems.push(`${at}.home_community_id must be an urn:oid: URN`);
    if (id === home) return void problems.push(`${at}.home_community_id is our own home community id`);
    if (seen.has(id)) return void problems.push(`${at}.home_community_id ${id} is listed twice`);
    seen.add(id);
    const name = typeof e['name'] === 'string' && e['name'].trim() !== '' ? e['name'].trim().slice(0, 200) : id;
    let baseUrl: string;
    try {
      const u = new URL(String(e['base_url']));
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
      if (u.username || u.password) return void problems.push(`${at}.base_url must not carry credentials`);
      baseUrl = u.toString().replace(/\/+$/, '');
    } catch {
      return void problems.push(`${at}.base_url must be an absolute http(s) URL`);
    }
    const caps = e['capabilities'] ?? [...TEFCA_CAPABILITIES];
    if (!Array.isArray(caps) || caps.some((c) => !(TEFCA_CAPABILITIES as readonly unknown[]).includes(c))) {
      return void problems.push(`${at}.capabilities must be a list of ${TEFCA_CAPABILITIES.join(', ')}`);
    }
    const token = e['token'];
    if (token !== undefined && token !== null && typeof token !== 'string') return void problems.push(`${at}.token must be a string`);
    peers.push({ homeCommunityId: id, name, baseUrl, capabilities: [...new Set(caps as TefcaCapability[])], token: token ?? null });
  });
  return peers;
}

export function readTefcaSettings(
  str: (name: string) => string | undefined,
  int: IntReader,
  bool: (name: string) => boolean,
  problems: string[],
  environment: 'sandbox' | 'production' = 'sandbox',
): TefcaSettings {
  const homeCommunityId = str('SVC_TEFCA_HOME_COMMUNITY_ID') ?? DEFAULT_HOME_COMMUNITY_ID;
  if (!isHomeCommunityId(homeCommunityId)) problems.push(`SVC_TEFCA_HOME_COMMUNITY_ID must be an urn:oid: URN (got "${String(homeCommunityId).slice(0, 60)}")`);
  const peers = parseTefcaPeers(str('SVC_TEFCA_PEERS'), homeCommunityId, problems);
  return {
    homeCommunityId,
    homeCommunityName: str('SVC_TEFCA_HOME_COMMUNITY_NAME') ?? DEFAULT_HOME_COMMUNITY_NAME,
    peers,
    timeoutMs: int('SVC_TEFCA_TIMEOUT_MS', 10_000, 100, 120_000),
    allowPrivateAddresses: bool('SVC_TEFCA_ALLOW_PRIVATE'),
    sandboxPeer: environment !== 'production' && peers.length === 0 && homeCommunityId !== SANDBOX_PEER_COMMUNITY_ID,
  };
}
