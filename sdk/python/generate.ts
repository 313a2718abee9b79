/**
 * Generates the Python SDK (sdk/python/health_partner_sdk/) from the served OpenAPI document `all`,
 * built from the route table as the facade builds it, so it covers whatever routes exist now.
 *
 *   npm run sdk:python             write the package
 *   npm run sdk:python -- --check  exit 1 when the committed package differs from a fresh one
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRODUCT_LIMITS, ROUTES } from '@svc/rest-facade';
import { buildOpenApiDocument } from '../../rest-facade/src/catalog/openapi.js';
import { PACKAGE_NAME, pythonPackageFiles } from './src/python-package.js';

/** Where the package is written. */
export const PACKAGE_DIR = fileURLToPath(new URL(`./${PACKAGE_NAME}/`, import.meta.url));

/** The package as generated from the current route table. The server URL is not used by the client. */
export function generatePythonPackage(): Map<string, string> {
  return pythonPackageFiles(buildOpenApiDocument(ROUTES, 'all', 'http://localhost:4000', PRODUCT_LIMITS));
}

/** Paths that differ between `files` and the package directory: changed, missing or no longer generated. */
export function packageDrift(files: ReadonlyMap<string, string>, dir = PACKAGE_DIR): string[] {
  const onDisk = existsSync(dir) ? readdirSync(dir).filter((name) => name !== '__pycache__') : [];
  const drift = [...files].filter(([name, text]) => !onDisk.includes(name) || readFileSync(join(dir, name), 'utf8') !== text).map(([name]) => name);
  return [...drift, ...onDisk.filter((name) => !files.has(name))];
}

function write(files: ReadonlyMap<string, string>, dir = PACKAGE_DIR): void {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) if (!files.has(name) && name !== '__pycache__') rmSync(join(dir, name), { recursive: true });
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = generatePythonPackage();
  if (process.argv.includes('--check')) {
    const drift = packageDrift(files);
    if (drift.length > 0) {
      console.error(`sdk/python/${PACKAGE_NAME} is stale (${drift.join(', ')}): run npm run sdk:python`);
      process.exit(1);
    }
  } else {
    write(files);
    console.log(`wrote sdk/python/${PACKAGE_NAME}: ${files.size} files`);
  }
}
