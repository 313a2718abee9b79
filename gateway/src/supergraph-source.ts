import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { supergraphOf } from './committed-composition.js';

export interface SupergraphSource {
  supergraphSdl: string;
  /** Each subgraph's name and routing URL, as the supergraph declares them. */
  subgraphs: { name: string; url: string }[];
}

interface SupergraphYaml {
  federation_version?: string;
  subgraphs?: Record<string, { routing_url?: string; schema?: { file?: string } }>;
}

/** Routing URLs from a composed supergraph's join__Graph enum. */
export function subgraphsOfSupergraph(sdl: string): { name: string; url: string }[] {
  const found: { name: string; url: string }[] = [];
  for (const m of sdl.matchAll(/@join__graph\(name:\s*"([^"]+)",\s*url:\s*"([^"]*)"\)/g)) found.push({ name: m[1]!, url: m[2]! });
  return found;
}

/**
 * Load a supergraph from a rover-style supergraph.yaml (composed here from its schema files) or
 * from an already composed supergraph SDL file.
 */
export function loadSupergraph(path: string): SupergraphSource {
  const text = readFileSync(path, 'utf8');
  if (!/\.ya?ml$/i.test(path)) return { supergraphSdl: text, subgraphs: subgraphsOfSupergraph(text) };
  const config = parseYaml(text) as SupergraphYaml;
  const entries = Object.entries(config.subgraphs ?? {});
  if (entries.length === 0) throw new Error(`${path} lists no subgraphs.`);
  const subgraphs = entries.map(([name, s]) => {
    if (!s.routing_url || !s.schema?.file) throw new Error(`${path}: subgraph ${name} needs routing_url and schema.file.`);
    return { name, url: s.routing_url, sdl: readFileSync(resolve(dirname(path), s.schema.file), 'utf8') };
  });
  return { supergraphSdl: supergraphOf(subgraphs), subgraphs: subgraphs.map(({ name, url }) => ({ name, url })) };
}
