import type { EntityManager } from '@mikro-orm/core';
import { decodeOptionalCursor, pageSize, toPage, validationError, type FieldError, type Logger, type Page, type RequestLogBatch } from '@svc/platform';
import { ApiTokenEntity } from '../entities/api-token.js';
import { requestLog, type StoredRequest } from '../entities/request-log.js';

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export const REQUEST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const CREDENTIAL_ID = /^(tok|ses|cli)_[0-9a-z]{1,40}$/;

/** Raw filter arguments, as GraphQL and the REST route pass them. */
export interface RequestLogQuery {
  first?: number | null;
  after?: string | null;
  statusClass?: string | null;
  method?: string | null;
  credentialId?: string | null;
  since?: Date | null;
  until?: Date | null;
}

/** Write one batch from an edge's recorder: the entries, then each token's last use (only ever forward in time). */
export async function recordRequestBatch(em: EntityManager, batch: RequestLogBatch): Promise<void> {
  await requestLog.insertMany(em, batch.requests);
  for (const use of batch.tokensUsed) {
    const at = new Date(use.at);
    await em.nativeUpdate(ApiTokenEntity, { id: use.tokenId, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: at } }] }, { lastUsedAt: at, lastUsedRoute: use.route.slice(0, 220) });
  }
}

/** A page of the caller's own request log, newest first; a bad filter is a VALIDATION_ERROR naming it. */
export async function readRequestLog(em: EntityManager, partnerGpid: string, query: RequestLogQuery): Promise<Page<StoredRequest>> {
  const errors: FieldError[] = [];
  const size = pageSize(query.first);
  const beforeId = decodeOptionalCursor(query.after, { argument: 'after', isKey: (k) => /^\d{1,20}$/.test(k) });
  let status: { min: number; max: number } | undefined;
  if (query.statusClass !== null && query.statusClass !== undefined) {
    const i = (STATUS_CLASSES as readonly string[]).indexOf(query.statusClass);
    if (i < 0) errors.push({ field: 'statusClass', message: `must be one of ${STATUS_CLASSES.join(', ')}` });
    else status = { min: (i + 2) * 100, max: (i + 2) * 100 + 99 };
  }
  if (query.method !== null && query.method !== undefined && !(REQUEST_METHODS as readonly string[]).includes(query.method)) {
    errors.push({ field: 'method', message: `must be one of ${REQUEST_METHODS.join(', ')}` });
  }
  if (query.credentialId !== null && query.credentialId !== undefined && !CREDENTIAL_ID.test(query.credentialId)) {
    errors.push({ field: 'credentialId', message: 'must be a credential id (tok_…, ses_…, cli_…)' });
  }
  if (query.since && query.until && query.since >= query.until) errors.push({ field: 'until', message: 'must be after since' });
  if (errors.length > 0) throw validationError(errors, 'The request log filter is invalid.');
  const rows = await requestLog.page(em, {
    partnerGpid,
    limit: size + 1,
    ...(status ? { status } : {}),
    ...(query.method ? { method: query.method } : {}),
    ...(query.credentialId ? { credentialId: query.credentialId } : {}),
    ...(query.since ? { since: query.since } : {}),
    ...(query.until ? { until: query.until } : {}),
    ...(beforeId ? { beforeId } : {}),
  });
  return toPage(rows, size, (r) => r.id);
}

/**
 * The pruning job: every `intervalMs`, delete entries older than the retention and each partner's
 * entries beyond its maximum. Answers its stop function. A failed run is logged and tried again at
 * the next interval.
 */
export function startRequestLogPruning(fork: () => EntityManager, settings: { retentionHours: number; maxPerPartner: number; pruneIntervalMs: number }, logger: Logger): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const deleted = await requestLog.prune(fork(), new Date(Date.now() - settings.retentionHours * 3_600_000), settings.maxPerPartner);
      if (deleted > 0) logger.debug({ deleted }, 'request log pruned');
    } catch (err) {
      logger.warn({ err }, 'request log pruning failed; it runs again at the next interval');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), settings.pruneIntervalMs);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}
