import { composeServices } from '@apollo/composition';
import { parse, Source } from 'graphql';

export interface SubgraphSdl {
  name: string;
  url: string;
  sdl: string;
}

export class CompositionError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Supergraph composition failed:\n  - ${problems.join('\n  - ')}`);
    this.name = 'CompositionError';
  }
}

/**
 * The last successful composition and its input. Composing takes about half a second of a core;
 * a process that composes the same subgraphs again (an embedded system started again in the same
 * process, as the test suite does once per file) gets the same supergraph without the work.
 */
let lastComposition: { input: string; supergraphSdl: string } | undefined;

/**
 * Compose subgraph SDLs into a supergraph in-process (no rover binary). Failures name the
 * subgraphs and fields involved, as composition reports them.
 */
export function composeSupergraph(subgraphs: readonly SubgraphSdl[]): string {
  const input = JSON.stringify(subgraphs.map(({ name, url, sdl }) => [name, url, sdl]));
  if (lastComposition?.input === input) return lastComposition.supergraphSdl;
  const problems: string[] = [];
  const services = subgraphs.map((s) => {
    try {
      return { name: s.name, url: s.url, typeDefs: parse(new Source(s.sdl, s.name)) };
    } catch (err) {
      problems.push(`[${s.name}] schema does not parse: ${(err as Error).message}`);
      return null;
    }
  });
  if (problems.length > 0) throw new CompositionError(problems);
  const result = composeServices(services.filter((s) => s !== null));
  if (result.errors) {
    throw new CompositionError(
      result.errors.map((e) => {
        const where = e.nodes?.map((n) => n.loc?.source.name).filter((n): n is string => Boolean(n && n !== 'GraphQL request')) ?? [];
        return `${e.extensions['code'] ?? 'COMPOSITION'}${where.length ? ` [${[...new Set(where)].join(', ')}]` : ''}: ${e.message}`;
      }),
    );
  }
  lastComposition = { input, supergraphSdl: result.supergraphSdl };
  return result.supergraphSdl;
}
