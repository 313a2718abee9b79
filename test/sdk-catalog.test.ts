import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken } from './support/fhir.js';

/**
 * The SDK catalog tells the truth: every entry it serves names a package whose sources are in this
 * repository, with the same name and version as the package's own manifest, a README, and an install
 * command (and, for a generated client, a generator script) that exist.
 */

const repo = (path: string) => new URL(`../${path}`, import.meta.url);

interface Entry {
  id: string;
  package_name: string;
  registry: string;
  published: boolean;
  version: string;
  source: string;
  readme: string;
  generator: string | null;
  features: string[];
  status: string;
  install: string;
}

/** Name and version from the package's own manifest: package.json (npm) or pyproject.toml (PyPI). */
function manifest(entry: Entry): { name: string; version: string } {
  if (entry.registry === 'npm') return JSON.parse(readFileSync(repo(`${entry.source}/package.json`), 'utf8')) as { name: string; version: string };
  if (entry.registry === 'pypi') {
    const text = readFileSync(repo(`${entry.source}/pyproject.toml`), 'utf8');
    const name = /^name\s*=\s*"([^"]+)"/m.exec(text)?.[1] ?? '';
    // A version given in pyproject.toml, or read by setuptools from a module attribute (dynamic).
    const attr = /^version\s*=\s*\{\s*attr\s*=\s*"([\w.]+)\.__version__"/m.exec(text)?.[1];
    const version = attr ? /__version__\s*=\s*"([^"]+)"/.exec(readFileSync(repo(`${entry.source}/${attr.replaceAll('.', '/')}.py`), 'utf8'))?.[1] : /^version\s*=\s*"([^"]+)"/m.exec(text)?.[1];
    return { name, version: version ?? '' };
  }
  throw new Error(`no manifest reader for registry ${entry.registry}`);
}

describe('SDK catalog', () => {
  let t: TestSystem;
  let catalog: { sdks: Entry[]; features: { code: string }[] };

  beforeAll(async () => {
    t = await bootSystem();
    const token = await apiToken(t, null, ['cms.sdk.read']);
    const res = await t.request({ url: '/cms-ecosystem/sdk-catalog', token });
    expect(res.statusCode).toBe(200);
    catalog = res.json();
  });
  afterAll(() => t?.close());

  it('names only packages that are in this repository, as their manifests name them', () => {
    expect(catalog.sdks.length).toBeGreaterThan(0);
    const scripts = (JSON.parse(readFileSync(repo('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const entry of catalog.sdks) {
      expect(manifest(entry), entry.id).toEqual(expect.objectContaining({ name: entry.package_name, version: entry.version }));
      expect(existsSync(repo(entry.readme)), entry.readme).toBe(true);
      // Not on a registry yet: the install command takes the package from this repository.
      expect(entry.published).toBe(false);
      expect(entry.install).toContain(`./${entry.source}`);
      if (entry.generator !== null) expect(Object.keys(scripts).map((s) => `npm run ${s}`)).toContain(entry.generator);
      for (const feature of entry.features) expect(catalog.features.map((f) => f.code)).toContain(feature);
    }
  });

  it('lists the TypeScript SDK first, then the Python client its generator writes', () => {
    expect(catalog.sdks.map((s) => s.id)).toEqual(['typescript', 'python']);
    expect(catalog.sdks[0]).toMatchObject({ package_name: '@health-partner/sdk', registry: 'npm', source: 'sdk/typescript', status: 'stable', generator: null });
    expect(catalog.sdks[1]).toMatchObject({ package_name: 'health-partner-sdk', registry: 'pypi', source: 'sdk/python', generator: 'npm run sdk:python' });
  });
});
