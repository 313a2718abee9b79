import type { FastifyInstance } from 'fastify';
import type { Principal } from './auth/principal.js';
import type { Logger } from './logging.js';

/**
 * One API request of a partner, as its request log keeps it: what was called and how it ended,
 * never a body, a query string, a header or a secret.
 */
export interface RequestLogEntry {
  partnerGpid: string;
  /** ISO 8601 UTC: when the answer was sent. */
  occurredAt: string;
  method: string;
  /** The route template (`/api/identity/{gpid}`), never the query string. */
  route: string;
  status: number;
  requestId: string;
  latencyMs: number;
  /** tok_…, ses_…, cli_… or the operator token's id. */
  credentialId: string | null;
  credentialKind: CredentialKind;
}

export type CredentialKind = 'api_token' | 'oauth_client' | 'portal_session' | 'operator';

/** When an API token was last used, and for what (`GET /cms/tokens`). */
export interface TokenUse {
  tokenId: string;
  at: string;
  route: string;
}

export interface RequestLogBatch {
  requests: RequestLogEntry[];
  tokensUsed: TokenUse[];
}

const principals = new WeakMap<object, { principal: Principal; requestId: string }>();

/**
 * Remember who an HTTP request authenticated as (keyed by the raw request), so the request log can
 * attribute the answer once it is sent. Called by the edges that authenticate: the facade's route
 * handler and the gateway's public /graphql.
 */
export function noteRequestPrincipal(raw: object, principal: Principal, requestId: string): void {
  principals.set(raw, { principal, requestId });
}

export function requestPrincipalOf(raw: object): { principal: Principal; requestId: string } | undefined {
  return principals.get(raw);
}

/** How a request log names the credential of a principal. */
export function credentialOf(principal: Principal): { credentialId: string | null; credentialKind: CredentialKind } {
  if (principal.clientId !== undefined) return { credentialId: principal.clientId, credentialKind: 'oauth_client' };
  if (principal.kind === 'portal') return { credentialId: principal.tokenId ?? null, credentialKind: 'portal_session' };
  if (principal.kind === 'service') return { credentialId: principal.tokenId ?? null, credentialKind: 'operator' };
  return { credentialId: principal.tokenId ?? null, credentialKind: 'api_token' };
}

/** `/api/identity/:gpid` → `/api/identity/{gpid}`, the way the route table and the catalog write paths. */
export function routeTemplate(fastifyUrl: string): string {
  return fastifyUrl.replace(/:(\w+)/g, '{$1}');
}

export interface RequestLogRecorderOptions {
  /** How often buffered entries are written. */
  flushMs: number;
  /** Entries per write; a full batch is written at once. */
  maxBatch?: number;
  /** Entries held while writes fail or lag; beyond it new entries are dropped (and counted). */
  maxBuffered?: number;
  /** An API token's last use is written at most this often per token (the rest are coalesced). */
  tokenUseIntervalMs?: number;
}

/**
 * Buffers request-log entries off the request path and writes them in batches through `sink`. The
 * request only appends to an array: a slow or failing write never delays or fails it (a failed batch
 * is logged, without its entries, and dropped). An API token's last use is coalesced: written at most
 * once a minute per token by this process.
 */
export class RequestLogRecorder {
  private buffer: RequestLogEntry[] = [];
  private readonly pendingUses = new Map<string, TokenUse>();
  private readonly usesWritten = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  private closed = false;
  /** Entries dropped because the buffer was full (a write backlog). */
  dropped = 0;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;
  private readonly tokenUseIntervalMs: number;

  constructor(
    private readonly sink: (batch: RequestLogBatch) => Promise<void>,
    private readonly logger: Logger,
    options: RequestLogRecorderOptions,
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.maxBuffered = options.maxBuffered ?? 10_000;
    this.tokenUseIntervalMs = options.tokenUseIntervalMs ?? 60_000;
    this.timer = setInterval(() => void this.flush(), options.flushMs);
    this.timer.unref();
  }

  /** Append one entry (and the token's use); never throws, never waits. */
  record(entry: RequestLogEntry): void {
    if (this.closed) return;
    if (this.buffer.length >= this.maxBuffered) {
      this.dropped++;
    } else {
      this.buffer.push(entry);
    }
    if (entry.credentialKind === 'api_token' && entry.credentialId) this.noteTokenUse(entry.credentialId, entry.occurredAt, `${entry.method} ${entry.route}`);
    if (this.buffer.length >= this.maxBatch) void this.flush();
  }

  private noteTokenUse(tokenId: string, at: string, route: string): void {
    const now = Date.parse(at);
    const written = this.usesWritten.get(tokenId);
    if (written !== undefined && now - written < this.tokenUseIntervalMs) return;
    if (this.usesWritten.size >= 50_000) this.usesWritten.clear();
    this.usesWritten.set(tokenId, now);
    this.pendingUses.set(tokenId, { tokenId, at, route });
  }

  /** Write what is buffered (one write at a time); resolves when it is written or given up. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.buffer.length === 0 && this.pendingUses.size === 0) return;
    const requests = this.buffer.splice(0, this.maxBatch);
    const tokensUsed = [...this.pendingUses.values()];
    this.pendingUses.clear();
    this.writing = this.sink({ requests, tokensUsed })
      .catch((err: unknown) => {
        this.logger.warn({ err: err instanceof Error ? err.message : String(err), entries: requests.length }, 'request log entries could not be written; dropped');
      })
      .finally(() => {
        this.writing = null;
      });
    await this.writing;
    if (this.buffer.length >= this.maxBatch) await this.flush();
  }

  /** Write what is left, then stop. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    this.closed = true;
  }
}

/**
 * Record every answered request of an authenticated partner credential on `app` (its onResponse
 * hook, after the answer was sent). Requests nobody authenticated (anonymous, a refused bearer) are
 * not recorded: they belong to no partner.
 */
export function recordRequests(app: FastifyInstance, recorder: RequestLogRecorder): void {
  app.addHook('onResponse', async (req, reply) => {
    const noted = requestPrincipalOf(req.raw);
    const partnerGpid = noted?.principal.partnerGpid;
    if (!noted || !partnerGpid) return;
    const { principal, requestId } = noted;
    const url = req.routeOptions.url;
    recorder.record({
      partnerGpid,
      occurredAt: new Date().toISOString(),
      method: req.method,
      route: url ? routeTemplate(url) : req.url.split('?')[0]!.slice(0, 200),
      status: reply.statusCode,
      requestId: requestId.slice(0, 100),
      latencyMs: Math.round(reply.elapsedTime),
      ...credentialOf(principal),
    });
  });
}
