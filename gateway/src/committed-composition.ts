import { readFileSync } from 'node:fs';
import { composeSupergraph, type SubgraphSdl } from './compose.js';

const ROOT = new URL('../../', import.meta.url);

function committed(path: string): string | undefined {
  try {
    return readFileSync(new URL(path, ROOT), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The committed composition reused when it is the one asked for: `supergraph.graphql` was composed
 * by `npm run compose` from `subgraphs/<name>/schema.graphql`, and test/supergraph.test.ts keeps
 * both equal to a fresh composition. A process whose subgraphs print exactly those schemas takes
 * it, with their routing URLs set in its join__Graph enum (the only place a URL appears), instead
 * of composing again (about 0.75 s of a core at every start). Any other input is composed.
 */
export function supergraphOf(subgraphs: readonly SubgraphSdl[]): string {
  const supergraph = committed('supergraph.graphql');
  const matches =
    supergraph !== undefined &&
    subgraphs.every((s) => /^[a-z][a-z0-9_-]*$/.test(s.name) && committed(`subgraphs/${s.name}/schema.graphql`)?.trim() === s.sdl.trim()) &&
    [...supergraph.matchAll(/@join__graph\(name: "([^"]+)", url: "[^"]*"\)/g)].map((m) => m[1]).sort().join() === subgraphs.map((s) => s.name).sort().join();
  if (!matches) return composeSupergraph(subgraphs);
  let sdl = supergraph;
  for (const s of subgraphs) sdl = sdl.replace(new RegExp(`(@join__graph\\(name: "${s.name}", url: )"[^"]*"`), (_all, head: string) => `${head}${JSON.stringify(s.url)}`);
  return sdl;
}
