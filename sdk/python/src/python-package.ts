/** The files of the `health_partner_sdk` package: the generated client plus the runtime modules it imports. */
import { readFileSync } from 'node:fs';
import { emitClient } from './emit-client.js';
import { readApiModel } from './openapi-operations.js';
import { pythonString } from './python-syntax.js';

/** The Python package's directory name (import name); the distribution is `health-partner-sdk`. */
export const PACKAGE_NAME = 'health_partner_sdk';

/** Hand-written modules of `runtime/`, copied as they are: HTTP, auth, retries and errors. */
const RUNTIME_MODULES = ['_transport.py', 'errors.py'] as const;

function initModule(title: string): string {
  return [
    `"""Python client of the ${title}, generated from its OpenAPI document.`,
    '',
    'Standard library only (urllib, json); Python 3.9 or later.',
    '',
    '    from health_partner_sdk import ApiError, Client',
    '',
    '    client = Client("https://sandbox.example.com", token="...")',
    '    routes = client.catalog_routes(product="identity")',
    '"""',
    '',
    'from ._transport import Response',
    'from ._version import __version__',
    'from .client import Client',
    'from .errors import ApiError',
    '',
    '__all__ = ["ApiError", "Client", "Response", "__version__"]',
    '',
  ].join('\n');
}

/**
 * Every file of the package, by path relative to the package directory. The package version is the
 * API version of the document (`info.version`), written once into `_version.py`, which
 * pyproject.toml reads.
 */
export function pythonPackageFiles(openApiDocument: Record<string, unknown>): Map<string, string> {
  const model = readApiModel(openApiDocument);
  const files = new Map<string, string>();
  files.set('__init__.py', initModule(model.title));
  files.set('_version.py', `"""The SDK's version: the version of the API document it was generated from."""\n\n__version__ = ${pythonString(model.version)}\n`);
  files.set('client.py', emitClient(model));
  for (const module of RUNTIME_MODULES) files.set(module, readFileSync(new URL(`../runtime/${module}`, import.meta.url), 'utf8'));
  files.set('py.typed', '');
  return files;
}
