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
 * `_summary=true`: the resource with only its top-level elements that the R4 definitions mark as
 * summary (isSummary), plus resourceType, id and meta, tagged SUBSETTED. Elements inside a kept
 * element are kept whole.
 */
export function summaryOf(resource: FhirResource): FhirResource {
  definitions();
  const summary = getDataType(resource.resourceType).summaryProperties ?? new Set<string>();
  const out = Object.fromEntries(Object.entries(resource).filter(([k]) => k === 'resourceType' || k === 'id' || k === 'meta' || isSummaryKey(k, summary))) as FhirResource;
  const meta = (out.meta ?? {}) as { tag?: unknown[] };
  out.meta = { ...meta, tag: [...(meta.tag ?? []), SUBSETTED] };
  return out;
}
