import type { Bundle, ExtractResource, Resource, ResourceType } from '@medplum/fhirtypes';
import { ApiError, apiErrorOf, retryAfterOf } from './errors.js';

export type SearchParams = URLSearchParams | Record<string, string | number | boolean | readonly (string | number)[] | undefined>;

/** The Bulk Data manifest of a finished `$export`. */
export interface ExportManifest {
  transactionTime: string;
  request: string;
  requiresAccessToken: boolean;
  output: { type: string; url: string; count?: number }[];
  error: { type: string; url: string }[];
}

export interface ExportOptions {
  /** system (`/$export`), patient (`/Patient/$export`) or a group (`/Group/{id}/$export`); default system. */
  level?: 'system' | 'patient' | { group: string };
  /** `_type`: the resource types to export. */
  types?: readonly string[];
  /** `_since`: only resources changed after this instant. */
  since?: Date | string;
  /** `_typeFilter` searches, e.g. `Observation?status=final`. */
  typeFilters?: readonly string[];
  /** Polling bounds: the server's Retry-After is honoured between these (default 1 s to 30 s). */
  minPollMs?: number;
  maxPollMs?: number;
  /** Give up after this long (default 30 minutes); the export keeps running on the server. */
  timeoutMs?: number;
  /** Called after each poll with the server's X-Progress. */
  onProgress?: (progress: string | null) => void;
}

const FHIR_JSON = 'application/fhir+json';

/**
 * Typed FHIR R4 access (types from @medplum/fhirtypes) over the client's transport: every call has
 * the client's credentials, retries and deprecation warnings. A refused call throws ApiError with the
 * OperationOutcome's code and diagnostics.
 */
export class FhirClient {
  constructor(
    /** `${baseUrl}/fhir/R4` */
    readonly base: string,
    private readonly send: (request: Request) => Promise<Response>,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  read<K extends ResourceType>(resourceType: K, id: string): Promise<ExtractResource<K>> {
    return this.json('GET', `${resourceType}/${encodeURIComponent(id)}`);
  }

  /** One page of a search; follow `link` (or use searchAll) for the next ones. */
  search<K extends ResourceType>(resourceType: K, params: SearchParams = {}): Promise<Bundle<ExtractResource<K>>> {
    return this.json('GET', `${resourceType}${queryOf(params)}`);
  }

  /** Every match of a search, page after page (the Bundle's `next` links), as one stream of resources. */
  async *searchAll<K extends ResourceType>(resourceType: K, params: SearchParams = {}): AsyncGenerator<ExtractResource<K>> {
    let page: Bundle<ExtractResource<K>> | undefined = await this.search(resourceType, params);
    while (page) {
      for (const entry of page.entry ?? []) if (entry.resource && entry.search?.mode !== 'include' && entry.search?.mode !== 'outcome') yield entry.resource;
      const next: string | undefined = page.link?.find((l) => l.relation === 'next')?.url;
      page = next ? await this.json<Bundle<ExtractResource<K>>>('GET', next) : undefined;
    }
  }

  /** Create; `ifNoneExist` makes it conditional (and safe to retry): `identifier=http://mrn|123`. */
  create<T extends Resource>(resource: T, options: { ifNoneExist?: string } = {}): Promise<T> {
    return this.json('POST', resource.resourceType, resource, options.ifNoneExist ? { 'if-none-exist': options.ifNoneExist } : {});
  }

  /** Update by id; `ifMatch` (a version id or an ETag) refuses it with 412 when someone else wrote first. */
  update<T extends Resource & { id: string }>(resource: T, options: { ifMatch?: string } = {}): Promise<T> {
    const etag = options.ifMatch === undefined ? undefined : options.ifMatch.startsWith('W/') ? options.ifMatch : `W/"${options.ifMatch}"`;
    return this.json('PUT', `${resource.resourceType}/${encodeURIComponent(resource.id)}`, resource, etag ? { 'if-match': etag } : {});
  }

  async delete(resourceType: ResourceType, id: string): Promise<void> {
    const response = await this.send(new Request(this.url(`${resourceType}/${encodeURIComponent(id)}`), { method: 'DELETE', headers: { accept: FHIR_JSON } }));
    if (!response.ok) throw await apiErrorOf(response, 'DELETE');
    await response.body?.cancel();
  }

  /** A transaction (all or nothing) or batch Bundle; answers the transaction-response or batch-response. */
  transaction(bundle: Bundle): Promise<Bundle> {
    return this.json('POST', '', bundle);
  }

  /** Kick off a Bulk Data `$export`, poll it to the end, and answer its manifest. */
  async bulkExport(options: ExportOptions = {}): Promise<ExportManifest> {
    const level = options.level ?? 'system';
    const path = level === 'system' ? '$export' : level === 'patient' ? 'Patient/$export' : `Group/${encodeURIComponent(level.group)}/$export`;
    const params: Record<string, string> = {};
    if (options.types?.length) params['_type'] = options.types.join(',');
    if (options.since !== undefined) params['_since'] = typeof options.since === 'string' ? options.since : options.since.toISOString();
    if (options.typeFilters?.length) params['_typeFilter'] = options.typeFilters.join(',');
    const kickoff = await this.send(new Request(this.url(`${path}${queryOf(params)}`), { method: 'GET', headers: { accept: FHIR_JSON, prefer: 'respond-async' } }));
    if (kickoff.status !== 202) throw kickoff.ok ? new Error(`$export answered ${kickoff.status} instead of 202`) : await apiErrorOf(kickoff, 'GET');
    await kickoff.body?.cancel();
    const statusUrl = kickoff.headers.get('content-location');
    if (!statusUrl) throw new Error('$export answered 202 without a Content-Location');
    const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
    const [minPoll, maxPoll] = [options.minPollMs ?? 1000, options.maxPollMs ?? 30_000];
    for (;;) {
      const status = await this.send(new Request(statusUrl, { method: 'GET', headers: { accept: 'application/json' } }));
      if (status.status === 200) return (await status.json()) as ExportManifest;
      if (status.status !== 202) throw await apiErrorOf(status, 'GET');
      options.onProgress?.(status.headers.get('x-progress'));
      const hinted = retryAfterOf(status.headers, Date.now());
      await status.body?.cancel();
      if (Date.now() >= deadline) throw new ApiError(408, 'EXPORT_TIMEOUT', `The export did not finish in time; poll ${statusUrl} later.`, { url: statusUrl });
      await this.sleep(Math.min(maxPoll, Math.max(minPoll, (hinted ?? 0) * 1000)));
    }
  }

  /** The resources of one `$export` output file (NDJSON), streamed line by line. */
  async *streamNdjson<T extends Resource = Resource>(url: string): AsyncGenerator<T> {
    const response = await this.send(new Request(url, { method: 'GET', headers: { accept: 'application/fhir+ndjson' } }));
    if (!response.ok) throw await apiErrorOf(response, 'GET');
    if (!response.body) return;
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line) yield JSON.parse(line) as T;
      }
    }
    pending += decoder.decode();
    if (pending.trim()) yield JSON.parse(pending) as T;
  }

  private url(path: string): string {
    return /^https?:\/\//.test(path) ? path : path ? `${this.base}/${path}` : this.base;
  }

  private async json<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const init: RequestInit = { method, headers: { accept: FHIR_JSON, ...(body === undefined ? {} : { 'content-type': FHIR_JSON }), ...headers } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await this.send(new Request(this.url(path), init));
    if (!response.ok) throw await apiErrorOf(response, method);
    return (await response.json()) as T;
  }
}

function queryOf(params: SearchParams): string {
  const query = params instanceof URLSearchParams ? new URLSearchParams(params) : new URLSearchParams();
  if (!(params instanceof URLSearchParams)) {
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) query.append(key, String(v));
      else query.append(key, String(value));
    }
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}
