import { parseExactJson, stringifyExactJson } from './exact-json.js';
import type { FhirResource } from './validation.js';

/**
 * A resource's stored JSON text (`content` of fhir_resources and fhir_resource_history, a text
 * column on both databases) and back, every number literal exactly as the client wrote it. $export
 * copies this text into its NDJSON files unchanged.
 */
export function storedContentOf(resource: FhirResource): string {
  return stringifyExactJson(resource);
}

export function parseStoredResource(content: string): FhirResource {
  return parseExactJson(content, 'content') as FhirResource;
}
