import { DomainError, type ErrorCode, type FieldError } from '@svc/platform';
import { parseStoredResource } from './stored-content.js';
import { extractSearchIndex, type SearchIndexRows } from './search-index.js';
import { validateFhirResource } from './validation.js';

/**
 * What a create checks and derives from the resource alone, once it is stamped: its R4 validation
 * and its search-index rows. Pure CPU work on the resource's stored text, so a transaction Bundle
 * can have it done off the event loop (create-check-pool.ts) while the loop writes.
 */
export type CreateCheck = { index: SearchIndexRows } | { refused: RefusalJson };

/** A DomainError (or any other failure) as plain data that crosses a worker boundary. */
export type RefusalJson = { code: ErrorCode; message: string; fieldErrors: FieldError[]; details: Record<string, unknown> } | { internal: string };

export function checkCreate(content: string): CreateCheck {
  try {
    const resource = parseStoredResource(content);
    validateFhirResource(resource);
    return { index: extractSearchIndex(resource) };
  } catch (err) {
    if (err instanceof DomainError) return { refused: { code: err.code, message: err.message, fieldErrors: [...err.fieldErrors], details: { ...err.details } } };
    return { refused: { internal: err instanceof Error ? err.message : String(err) } };
  }
}

/** The index of a check that passed; the check's refusal thrown as the error the inline path throws. */
export function indexOrThrow(check: CreateCheck): SearchIndexRows {
  if ('index' in check) return check.index;
  const refused = check.refused;
  if ('internal' in refused) throw new Error(refused.internal);
  throw new DomainError(refused.code, refused.message, { fieldErrors: refused.fieldErrors, details: refused.details });
}
