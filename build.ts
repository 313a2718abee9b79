/**
 * Compiles the service into dist/ with esbuild: `server.mjs` (what `npm start` runs) and one file
 * per module a worker thread loads by URL. Our own TypeScript is bundled; packages stay in
 * node_modules and are imported from there as they are when the sources run under tsx.
 *
 * A process then loads one file instead of some five hundred through tsx's loader hooks: it reaches
 * /ready on 0.56-0.74 of the CPU (`npm run bench -- --suite boot`, bench/RESULTS.md, "Boot").
 *
 * Sources refer to files beside them through `import.meta.url` (the legal texts, the portal's
 * build, the supergraph, the Postman worker): each such reference is rewritten to the source
 * file's own location, relative to dist/, so the bundle finds what the source would. A
 * `new URL('./x.ts', import.meta.url)` naming a thread module points at that module's compiled
 * file instead; a TypeScript module loaded by URL that is not listed in THREAD_MODULES fails the
 * build, so no thread silently falls back to transpiling its sources.
 *
 * It also writes the trimmed FHIR definitions every process reads at start (definition-files.ts).
 *
 * Run by `npm run build`, before `npm start`, and once before the test suite (test/support/global-setup.ts).
 * Each file is written to a temporary name and renamed, so a process starting meanwhile (or a
 * second build running beside this one) never reads half a file.
 */
import { build, type Plugin } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeTrimmedDefinitions } from './subgraphs/fhir/src/domain/definition-files.js';

const ROOT = dirname(fileURLToPath(import.meta.url));
export const DIST = join(ROOT, 'dist');

/** Modules started by URL in a worker thread, by the name of their compiled file. */
const THREAD_MODULES: Record<string, string> = {
  'thread-entry': 'platform/src/jobs/thread-entry.mjs',
  'fhir-job-thread': 'subgraphs/fhir/src/job-thread.ts',
  'identity-training-thread': 'subgraphs/identity/src/training-thread.ts',
};

/** Stands for the compiled file's own `import.meta.url` while the source's are re-anchored. */
const OWN_URL = '__compiled_file_url__';

const compiledName = new Map(Object.entries(THREAD_MODULES).map(([name, path]) => [join(ROOT, path), `${name}.mjs`]));

/** Keep packages external (our `@svc/*` workspaces are bundled) and re-anchor `import.meta.url`. */
const sourceLocations: Plugin = {
  name: 'source-locations',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@svc/') ? undefined : { path: args.path, external: true }));
    b.onLoad({ filter: /\.(ts|mjs)$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      let source = await readFile(args.path, 'utf8');
      if (/import\.meta\.(dirname|filename)/.test(source)) {
        throw new Error(`${relative(ROOT, args.path)}: use import.meta.url, which the build re-anchors (import.meta.dirname is not)`);
      }
      source = source.replace(/new URL\((['"])(\.{1,2}\/[^'"]+)\1, import\.meta\.url\)/g, (whole, _quote: string, target: string) => {
        const targetPath = resolve(dirname(args.path), target);
        const compiled = compiledName.get(targetPath);
        if (compiled) return `new URL(${JSON.stringify(`./${compiled}`)}, ${OWN_URL})`;
        if (targetPath.endsWith('.ts')) throw new Error(`${relative(ROOT, args.path)}: ${target} is loaded by URL; add it to THREAD_MODULES in build.ts`);
        return whole;
      });
      const here = JSON.stringify(relative(DIST, args.path));
      source = source.replaceAll('import.meta.url', `new URL(${here}, import.meta.url).href`).replaceAll(OWN_URL, 'import.meta.url');
      return { contents: source, loader: args.path.endsWith('.ts') ? 'ts' : 'js', resolveDir: dirname(args.path) };
    });
  },
};

export async function buildServer(): Promise<void> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { server: join(ROOT, 'server.ts'), ...Object.fromEntries(Object.entries(THREAD_MODULES).map(([name, path]) => [name, join(ROOT, path)])) },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: DIST,
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    // Stack traces name the source file and line; the map need not carry the sources themselves.
    sourcesContent: false,
    write: false,
    logLevel: 'warning',
    plugins: [sourceLocations],
  });
  mkdirSync(DIST, { recursive: true });
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
  writeTrimmedDefinitions();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildServer();
