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
 * Compose subgraph SDLs into a supergraph in-process (no rover binary). Failures name the
 * subgraphs and fields involved, as composition reports them.
 */
export function composeSupergraph(subgraphs: readonly SubgraphSdl[]): string {
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
  return result.supergraphSdl;
}
