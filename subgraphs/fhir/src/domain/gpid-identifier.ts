/**
 * The GPID identifier of a Patient (`urn:svc:gpid`), as it is shown to clients. It is not part of
 * the Patient's versioned content: the identity link keeps it in its own table and every read
 * (read, vread, search, `_history`, `$export`, GraphQL) projects the current link onto the
 * Patient's JSON (see identity-link.ts). These helpers build and strip that identifier.
 */
import { parseStoredResource, storedContentOf } from './stored-content.js';
import type { FhirResource } from './validation.js';

/** The identifier system of GPIDs on Patients (search: `identifier=urn:svc:gpid|SVC-…`). */
export const GPID_SYSTEM = 'urn:svc:gpid';

type Identifier = { system?: unknown; value?: unknown } & Record<string, unknown>;

const isGpidIdentifier = (i: unknown): boolean => typeof i === 'object' && i !== null && (i as Identifier).system === GPID_SYSTEM;
const identifiersOf = (resource: FhirResource): unknown[] => (Array.isArray(resource['identifier']) ? (resource['identifier'] as unknown[]) : []);

/** The GPID a Patient carries, if any. */
export function gpidOf(resource: FhirResource | null): string | null {
  const found = identifiersOf(resource ?? { resourceType: 'Patient' }).find(isGpidIdentifier) as Identifier | undefined;
  return typeof found?.value === 'string' ? found.value : null;
}

/** The identifier a Patient with GPID `gpid` carries. */
export function gpidIdentifier(gpid: string): Record<string, unknown> {
  return { use: 'secondary', system: GPID_SYSTEM, value: gpid, assigner: { display: 'GPID registry' } };
}

/**
 * `resource` with its GPID identifier set to `gpid` (or removed when null), every other identifier
 * and every other element kept in place (`identifier` keeps its position among the elements).
 */
export function withGpid(resource: FhirResource, gpid: string | null): FhirResource {
  const others = identifiersOf(resource).filter((i) => !isGpidIdentifier(i));
  const identifier = gpid ? [...others, gpidIdentifier(gpid)] : others;
  if (!('identifier' in resource)) return (identifier.length > 0 ? { ...resource, identifier } : resource) as FhirResource;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    if (key !== 'identifier') out[key] = value;
    else if (identifier.length > 0) out[key] = identifier;
  }
  return out as FhirResource;
}

/** A client's Patient body without any GPID identifier: the link, not the client, decides it. */
export function withoutClientGpid(resourceType: string, input: FhirResource): FhirResource {
  if (resourceType !== 'Patient' || !identifiersOf(input).some(isGpidIdentifier)) return input;
  return withGpid(input, null);
}

/**
 * A stored Patient's JSON text with its current GPID link projected on it (`gpid` null: not
 * linked). Text without a GPID identifier, read for a Patient that is not linked, is answered
 * unchanged without being parsed.
 */
export function projectGpidOnText(content: string, gpid: string | null): string {
  if (gpid === null && !content.includes(GPID_SYSTEM)) return content;
  const resource = parseStoredResource(content);
  if (gpidOf(resource) === gpid && identifiersOf(resource).filter(isGpidIdentifier).length <= 1 && (gpid === null || sameIdentifier(resource, gpid))) return content;
  return storedContentOf(withGpid(resource, gpid));
}

function sameIdentifier(resource: FhirResource, gpid: string): boolean {
  const found = identifiersOf(resource).find(isGpidIdentifier);
  return JSON.stringify(found) === JSON.stringify(gpidIdentifier(gpid));
}
