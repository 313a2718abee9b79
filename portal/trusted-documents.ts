/**
 * The portal's trusted documents: every GraphQL operation in portal/src (the explorers excepted,
 * whose operations are the user's), extracted with graphql-tag-pluck from template literals marked
 * `/* GraphQL *\/`, keyed by the SHA-256 of their exact text. The gateway accepts these by id
 * (`documentId`) and, where SVC_GRAPHQL_TRUSTED_DOCUMENTS requires it, only these.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gqlPluckFromCodeStringSync } from '@graphql-tools/graphql-tag-pluck';
import { parse } from 'graphql';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Where the manifest is written: `{ "<sha256 hex>": "<document>" }`, the GraphQL Code Generator's persisted-documents format. */
export const TRUSTED_DOCUMENTS_MANIFEST = join(root, 'trusted-documents.json');

/** A document's id: the SHA-256 of its exact text, in hex (the same hash APQ uses, so one key space). */
export function trustedDocumentId(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'explorer' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every operation of the portal's sources, by id, sorted by id; a document that does not parse fails the build. */
export function extractTrustedDocuments(srcDir: string = join(root, 'src')): Record<string, string> {
  const documents = new Map<string, string>();
  for (const file of sourceFiles(srcDir)) {
    for (const source of gqlPluckFromCodeStringSync(file, readFileSync(file, 'utf8'), { skipIndent: true })) {
      try {
        parse(source.body);
      } catch (err) {
        throw new Error(`${relative(root, file)}: a /* GraphQL */ literal does not parse: ${(err as Error).message}`);
      }
      documents.set(trustedDocumentId(source.body), source.body);
    }
  }
  return Object.fromEntries([...documents].sort(([a], [b]) => a.localeCompare(b)));
}

/** The manifest as written to disk (stable: sorted keys, two-space indentation, final newline). */
export function manifestText(documents: Record<string, string>): string {
  return `${JSON.stringify(documents, null, 2)}\n`;
}
