import { getDataType } from '@medplum/core';
import { definitions } from './definitions.js';
import type { FhirResource } from './validation.js';

const SUBSETTED = { system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED' };

/** Whether a top-level JSON key belongs to a summary element (`deceasedBoolean` to `deceased[x]`). */
function isSummaryKey(key: string, summary: ReadonlySet<string>): boolean {
  if (summary.has(key)) return true;
  for (let i = 1; i < key.length; i++) if (/[A-Z]/.test(key[i]!) && summary.has(key.slice(0, i))) return true;
  return false;
}

/**
 * `_summary`, tagged SUBSETTED: `true` keeps the top-level elements the R4 definitions mark as
 * summary (isSummary); `text` keeps `text` and the top-level mandatory elements; `data` drops
 * `text`. resourceType, id and meta always stay; a kept element is kept whole.
 */
export function summaryOf(resource: FhirResource, mode: 'true' | 'text' | 'data'): FhirResource {
  definitions();
  const schema = getDataType(resource.resourceType);
  const wanted = mode === 'true' ? (schema.summaryProperties ?? new Set<string>()) : new Set(['text', ...(schema.mandatoryProperties ?? [])]);
  const keep = (k: string) => k === 'resourceType' || k === 'id' || k === 'meta' || (mode === 'data' ? k !== 'text' : isSummaryKey(k, wanted));
  const out = Object.fromEntries(Object.entries(resource).filter(([k]) => keep(k))) as FhirResource;
  const meta = (out.meta ?? {}) as { tag?: unknown[] };
  out.meta = { ...meta, tag: [...(meta.tag ?? []), SUBSETTED] };
  return out;
}
