import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '@svc/rest-facade';

/**
 * The docs hub's guides (docs/*.md, rendered in the portal) cite only what is real: every route
 * they name is a row of the route table, every `SVC_…` setting is read by the code, every link to
 * another guide names a file of docs/, and the hub lists every guide there is.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(ROOT, 'docs');
const files = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
const docs = files.map((file) => ({ file, text: readFileSync(join(DOCS, file), 'utf8') }));

/** Served by the gateway itself, not a row of the facade's table: the GraphQL endpoint. */
const GATEWAY = new Set(['POST /graphql', 'GET /graphql']);

/** A concrete or templated path matches a route's path template (`{id}` is one segment). */
function routeFor(method: string, path: string) {
  const bare = path.split(/[?#]/)[0]!.replace(/\/$/, '') || '/';
  return ROUTES.find((r) => {
    if (r.method !== method) return false;
    if (r.path === bare) return true;
    const pattern = new RegExp(`^${r.path.replace(/[.$*+?()[\]\\^|]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return pattern.test(bare);
  });
}

/** `GET /path` as the guides write it, and `curl [-X METHOD] "$ORIGIN/path"` in their examples. */
function citedRoutes(text: string): { method: string; path: string }[] {
  const cited: { method: string; path: string }[] = [];
  for (const m of text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s`"'),]*)/g)) cited.push({ method: m[1]!, path: m[2]! });
  for (const block of text.matchAll(/^curl [\s\S]*?(?=\n```|\n\n)/gm)) {
    const command = block[0];
    const path = /\$ORIGIN(\/[^\s"']*)/.exec(command)?.[1];
    if (!path) continue;
    const method = /-X (\w+)/.exec(command)?.[1] ?? (/\s-d\s/.test(command) ? 'POST' : 'GET');
    cited.push({ method, path });
  }
  return cited;
}

/** Every source file the running service is made of (no tests), where settings are read. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [readFileSync(path, 'utf8')] : [];
  });
}

describe('docs hub', () => {
  it('cites only routes of the route table', () => {
    const cited = docs.flatMap((d) => citedRoutes(d.text).map((c) => ({ ...c, file: d.file })));
    // The guides do cite routes (the extraction works): quick start, authentication, webhooks, FHIR, TEFCA.
    expect(cited.length).toBeGreaterThan(25);
    const missing = cited.filter((c) => !GATEWAY.has(`${c.method} ${c.path}`) && !routeFor(c.method, c.path)).map((c) => `${c.file}: ${c.method} ${c.path}`);
    expect(missing).toEqual([]);
    // And the check would see a route that does not exist.
    expect(routeFor('GET', '/cms/no-such-route')).toBeUndefined();
    expect(routeFor('PUT', '/api/partner/webhooks/whk_1/enable')).toBeUndefined();
    expect(routeFor('POST', '/api/partner/webhooks/whk_1/enable')).toBeDefined();
  });

  it('cites only settings the service reads', () => {
    const code = ['platform/src', 'gateway/src', 'rest-facade/src', 'subgraphs'].flatMap((d) => sources(join(ROOT, d))).join('\n');
    const settings = [...new Set(docs.flatMap((d) => [...d.text.matchAll(/\bSVC_[A-Z0-9_]+\b/g)].map((m) => m[0])))];
    expect(settings.length).toBeGreaterThan(0);
    expect(settings.filter((s) => !code.includes(`'${s}'`) && !code.includes(`"${s}"`))).toEqual([]);
  });

  it('links guides to guides that exist, and the hub lists every guide of docs/', () => {
    for (const d of docs) {
      for (const m of d.text.matchAll(/\]\(([a-z0-9-]+\.md)(#[\w-]*)?\)/g)) expect(files, `${d.file} links ${m[1]}`).toContain(m[1]);
      if (d.file !== 'README.md') expect(d.text, `${d.file} starts with its # title`).toMatch(/^# \S/);
    }
    const hub = readFileSync(join(ROOT, 'portal/src/docs/guides.ts'), 'utf8');
    const listed = [...hub.matchAll(/from '\.\.\/\.\.\/\.\.\/docs\/([a-z0-9-]+\.md)'/g)].map((m) => m[1]);
    // The two references are generated pages; their files only point there.
    expect([...listed, 'scope-reference.md', 'fhir-reference.md', 'README.md'].sort()).toEqual([...files].sort());
  });
});
