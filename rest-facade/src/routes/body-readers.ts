import { DomainError, validationError, type FieldError } from '@svc/platform';

/**
 * Shape checks of JSON request bodies, done before the gateway is called: a wrong type is the
 * caller's 422 with the field named, never a GraphQL variable error. Rules beyond the shape (lengths,
 * formats, policies) belong to the domain and come back as its own field errors.
 */
export class BodyReader {
  private readonly errors: FieldError[] = [];
  private readonly body: Record<string, unknown>;

  constructor(body: unknown, options: { allowEmpty?: boolean } = {}) {
    if (body === undefined || body === null || body === '') {
      if (!options.allowEmpty) throw new DomainError('VALIDATION_ERROR', 'The request needs a JSON object body.', { fieldErrors: [{ field: '', message: 'a JSON object is required' }] });
      this.body = {};
      return;
    }
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw new DomainError('VALIDATION_ERROR', 'The request body must be a JSON object.', { fieldErrors: [{ field: '', message: 'must be a JSON object' }] });
    }
    this.body = body as Record<string, unknown>;
  }

  /** A string field; `undefined` when optional and absent (null counts as absent). */
  string(field: string, required: true): string;
  string(field: string, required?: false): string | undefined;
  string(field: string, required = false): string | undefined {
    const value = this.body[field];
    if (value === undefined || value === null) {
      if (required) this.errors.push({ field, message: 'is required' });
      return undefined;
    }
    if (typeof value !== 'string') {
      this.errors.push({ field, message: 'must be a string' });
      return undefined;
    }
    return value;
  }

  /** An array of strings; entries of another type are reported by index. */
  stringArray(field: string, required = false): string[] | undefined {
    const value = this.body[field];
    if (value === undefined || value === null) {
      if (required) this.errors.push({ field, message: 'is required' });
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.errors.push({ field, message: 'must be an array of strings' });
      return undefined;
    }
    const bad = value.findIndex((v) => typeof v !== 'string');
    if (bad !== -1) {
      this.errors.push({ field: `${field}.${bad}`, message: 'must be a string' });
      return undefined;
    }
    return value as string[];
  }

  /** An integer field. */
  integer(field: string): number | undefined {
    const value = this.body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.errors.push({ field, message: 'must be an integer' });
      return undefined;
    }
    return value;
  }

  /** An RFC 3339 date-time with a time zone (`2026-12-31T23:59:59Z`). */
  dateTime(field: string): string | undefined {
    const value = this.string(field);
    if (value === undefined) return undefined;
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(Date.parse(value))) {
      this.errors.push({ field, message: 'must be an RFC 3339 date-time with a time zone, e.g. 2026-12-31T23:59:59Z' });
      return undefined;
    }
    return value;
  }

  /** A JSON object field. */
  object(field: string): Record<string, unknown> | undefined {
    const value = this.body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.errors.push({ field, message: 'must be a JSON object' });
      return undefined;
    }
    return value as Record<string, unknown>;
  }

  /** The raw value of a field, for checks of its own. */
  raw(field: string): unknown {
    return this.body[field];
  }

  /** Report a problem found by the caller's own check. */
  fail(field: string, message: string): void {
    this.errors.push({ field, message });
  }

  /** Throw every problem found so far as one 422. */
  done(): void {
    if (this.errors.length > 0) throw validationError(this.errors);
  }
}

/** The first value of a query parameter given once, or undefined; repeating it is a 422. */
export function singleQueryValue(query: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw validationError([{ field: name, message: 'must be given once' }]);
  return value === '' ? undefined : value;
}
