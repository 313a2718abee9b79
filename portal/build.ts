/**
 * Builds the portal into portal/dist: one hashed JS bundle and one hashed CSS file (esbuild), and
 * an index.html that loads them with no inline script, as the Content-Security-Policy requires.
 * Runs from `postinstall` and before `npm start` (`--if-missing`: only when dist has no index.html).
 */
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractTrustedDocuments, manifestText, TRUSTED_DOCUMENTS_MANIFEST } from './trusted-documents.js';

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, 'dist');

if (process.argv.includes('--if-missing') && existsSync(join(dist, 'index.html'))) process.exit(0);

mkdirSync(dist, { recursive: true });
for (const file of readdirSync(dist)) rmSync(join(dist, file), { recursive: true, force: true });

const common = {
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': '"production"' },
  loader: { '.woff': 'file', '.woff2': 'file', '.ttf': 'file', '.svg': 'file' },
  outdir: dist,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
} as const;

// The explorers: one file each, as before (their libraries' own lazy imports stay inside them).
const explorers = await build({ ...common, entryPoints: { graphiql: join(root, 'src/explorer/graphiql.ts'), rest: join(root, 'src/explorer/rest.ts') } });
// The trusted documents: the portal's operations by id, written beside the sources for the gateway,
// and bundled as text → id so that the portal sends `documentId` instead of the text.
const trustedDocuments = extractTrustedDocuments();
writeFileSync(TRUSTED_DOCUMENTS_MANIFEST, manifestText(trustedDocuments));
const documentIds = Object.fromEntries(Object.entries(trustedDocuments).map(([id, text]) => [text, id]));
// The portal: the docs hub (markdown-it and docs/*.md, bundled as text) is a dynamic import, so it
// is a chunk of its own, loaded on the first docs page, and the portal's own bundle stays small.
const app = await build({
  ...common,
  entryPoints: { app: join(root, 'src/main.tsx') },
  loader: { ...common.loader, '.md': 'text' },
  define: { ...common.define, __TRUSTED_DOCUMENT_IDS__: JSON.stringify(documentIds) },
  splitting: true,
  chunkNames: 'chunk-[hash]',
});
const result = { metafile: { outputs: { ...explorers.metafile.outputs, ...app.metafile.outputs } } };

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => /^app-.*\.js$/.test(f));
const css = outputs.find((f) => /^app-.*\.css$/.test(f));
if (!js || !css) throw new Error(`portal build: missing outputs (${outputs.join(', ')})`);
const graphiqlJs = outputs.find((f) => /^graphiql-.*\.js$/.test(f));
const graphiqlCss = outputs.find((f) => /^graphiql-.*\.css$/.test(f));
if (!graphiqlJs || !graphiqlCss) throw new Error(`portal build: missing GraphiQL outputs (${outputs.join(', ')})`);
const restJs = outputs.find((f) => /^rest-.*\.js$/.test(f));
const restCss = outputs.find((f) => /^rest-.*\.css$/.test(f));
if (!restJs || !restCss) throw new Error(`portal build: missing REST explorer outputs (${outputs.join(', ')})`);

const explorerHeader = (current: 'graphiql' | 'rest') => `<header class="explorer-top">
<a class="brand" href="/portal">Partner portal</a>
<nav aria-label="Portal">
<ul>
<li><a href="/portal">Back to the portal</a></li>
<li><a href="/portal/docs">Docs</a></li>
<li><a href="/portal/graphiql.html"${current === 'graphiql' ? ' aria-current="page"' : ''}>GraphQL explorer</a></li>
<li><a href="/portal/rest-explorer.html"${current === 'rest' ? ' aria-current="page"' : ''}>REST explorer</a></li>
</ul>
</nav>
</header>`;

// The GraphQL explorer is its own page (React + GraphiQL), so the portal's bundle stays small.
writeFileSync(
  join(dist, 'graphiql.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphQL explorer · Partner portal</title>
<link rel="stylesheet" href="/portal/${graphiqlCss}">
<link rel="stylesheet" href="/portal/${css}">
<script type="module" src="/portal/${graphiqlJs}"></script>
</head>
<body class="explorer explorer-page">
${explorerHeader('graphiql')}
<main id="graphiql" aria-label="GraphQL explorer">Loading the GraphQL explorer…</main>
</body>
</html>
`,
);

// The REST explorer (Swagger UI on our OpenAPI documents) is its own page too.
writeFileSync(
  join(dist, 'rest-explorer.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>REST explorer · Partner portal</title>
<link rel="stylesheet" href="/portal/${restCss}">
<script type="module" src="/portal/${restJs}"></script>
</head>
<body class="explorer-page">
${explorerHeader('rest')}
<main id="rest-explorer" aria-label="REST explorer">Loading the REST explorer…</main>
</body>
</html>
`,
);

writeFileSync(
  join(dist, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner portal</title>
<link rel="icon" href="/portal/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/portal/${css}">
<script type="module" src="/portal/${js}"></script>
</head>
<body>
<div id="app"><noscript>The partner portal needs JavaScript.</noscript></div>
</body>
</html>
`,
);
// The icon (committed as src/favicon.svg) is also what the facade answers for /favicon.ico.
copyFileSync(join(root, 'src/favicon.svg'), join(dist, 'favicon.svg'));
process.stdout.write(`portal built: ${js}, ${css}\n`);
