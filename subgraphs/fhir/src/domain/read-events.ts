import type { EntityManager } from '@mikro-orm/core';
import { commitEvent, makeEvent, recordEvent, type EventEnvelope, type FhirReadEvents } from '@svc/platform';

/** How long reads of one kind are counted into one `fhir.resource.read` event after the first. */
export const READ_EVENT_WINDOW_MS = 1000;

/**
 * The internal event that carries the exact count of a partner's successful reads (per credential)
 * of one second to the partner subgraph's certification evidence, whatever `SVC_FHIR_READ_EVENTS`
 * says about the audit events. Internal: never in the event log, webhooks or subscriptions.
 */
export const READS_COUNTED = 'fhir.internal.reads_counted';

/** What one read-like interaction reports: ids and counts only, never content. */
export interface ReadReport {
  partnerGpid: string | null;
  resourceType: string;
  interaction: 'read' | 'vread' | 'history' | 'search';
  status: number;
  requestId: string;
  /**
   * The partner API token or OAuth client the read was made with (null for other principals): the
   * partner subgraph counts such a read as the partner's first authenticated call.
   */
  credentialId?: string | null;
}

interface Window {
  report: ReadReport;
  /** Reads counted since the window's event was written. */
  count: number;
  firstRequestId: string | null;
  lastRequestId: string | null;
  timer: NodeJS.Timeout;
}

/** Successful reads of one partner and credential, counted since the last `fhir.internal.reads_counted`. */
interface Counted {
  partnerGpid: string;
  credentialId: string | null;
  count: number;
  firstRequestId: string;
  lastRequestId: string;
  resourceType: string;
  interaction: ReadReport['interaction'];
}

const countKey = (partnerGpid: string, credentialId: string | null): string => `${partnerGpid}\u0000${credentialId ?? ''}`;

function readEvent(report: ReadReport, count: number, requestId: string, lastRequestId?: string, sampleRatio?: number): EventEnvelope {
  return makeEvent('fhir.resource.read', report.partnerGpid, {
    event: 'fhir.resource.read',
    resource_type: report.resourceType,
    interaction: report.interaction,
    status: report.status,
    partner_gpid: report.partnerGpid,
    request_id: requestId,
    ...(report.credentialId ? { credential_id: report.credentialId } : {}),
    count,
    ...(lastRequestId && lastRequestId !== requestId ? { last_request_id: lastRequestId } : {}),
    ...(sampleRatio !== undefined ? { sample_ratio: sampleRatio } : {}),
  });
}

/**
 * `fhir.resource.read` events as `SVC_FHIR_READ_EVENTS` says (each, batched, sampled, off; see
 * `FhirReadEvents`), and the exact count of every partner's successful reads, handed on once a second
 * as `fhir.internal.reads_counted` for the certification evidence, whatever the setting.
 *
 * Batched (the default): coalesced per partner, type, interaction and status. The first read
 * of such a kind has its own event (count 1), written as soon as it has its answer; the
 * reads of the same kind in the next second are counted and written as one event (`count`, the
 * first and last request ids) when the second ends, and so on while they keep coming. A profile of
 * reads showed the per-read event (an outbox row, then six durable consumers each handling it)
 * costing about five times the read itself; coalesced, a sustained read load writes one event per
 * kind per second. What is given up: a counted read's own request id (only the first and last of
 * a window are named), and the counts of the last second if the process dies before it ends (a
 * clean stop writes them, see `close`).
 */
export class ReadEventLog {
  private readonly windows = new Map<string, Window>();
  /** Successful reads of partners not handed on yet, by partner and credential. */
  private readonly counted = new Map<string, Counted>();
  private countTimer: NodeJS.Timeout | undefined;
  /** First reads' events being written (a clean stop waits for them). */
  private readonly writing = new Set<Promise<void>>();
  private closed = false;

  /**
   * @param fork an entity manager of its own for writing a window's event when it ends.
   * @param published called after such a write commits (wakes the outbox relay).
   */
  constructor(
    private readonly fork: () => EntityManager,
    private readonly published: () => void,
    private readonly onError: (err: unknown) => void,
    private readonly setting: FhirReadEvents = { mode: 'batched' },
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * Record one read: its own event if it opens a window, else a count. The event is written after
   * the read has its answer, not before: on SQLite a write waits for the database's write lock, which
   * a job thread's transaction Bundle may hold for seconds, and a read must not wait for it. A read
   * that only counts writes nothing, so a caller has nothing to publish after it.
   */
  async record(report: ReadReport): Promise<void> {
    this.count(report);
    switch (this.setting.mode) {
      case 'off':
        return;
      case 'each':
        this.writeOwn(readEvent(report, 1, report.requestId));
        return;
      case 'sampled':
        if (this.random() < this.setting.ratio) this.writeOwn(readEvent(report, 1, report.requestId, undefined, this.setting.ratio));
        return;
      case 'batched':
        this.coalesce(report);
    }
  }

  /** Count a successful read of a partner for the certification evidence (written once a second). */
  private count(report: ReadReport): void {
    if (report.partnerGpid === null || report.status < 200 || report.status >= 300 || this.closed) return;
    const key = countKey(report.partnerGpid, report.credentialId ?? null);
    const open = this.counted.get(key);
    if (open) {
      open.count += 1;
      open.lastRequestId = report.requestId;
    } else {
      this.counted.set(key, { partnerGpid: report.partnerGpid, credentialId: report.credentialId ?? null, count: 1, firstRequestId: report.requestId, lastRequestId: report.requestId, resourceType: report.resourceType, interaction: report.interaction });
    }
    this.scheduleCounts();
  }

  private scheduleCounts(): void {
    if (this.countTimer || this.closed) return;
    this.countTimer = setTimeout(() => {
      this.countTimer = undefined;
      void this.writeCounts();
    }, READ_EVENT_WINDOW_MS);
    this.countTimer.unref();
  }

  /** Counts whose commit failed go back, added to what came since, for the next second's commit. */
  private restoreCounts(counts: readonly Counted[]): void {
    for (const c of counts) {
      const key = countKey(c.partnerGpid, c.credentialId);
      const since = this.counted.get(key);
      this.counted.set(key, since ? { ...c, count: c.count + since.count, lastRequestId: since.lastRequestId } : c);
    }
    this.scheduleCounts();
  }

  /** Hand the counts on: one `fhir.internal.reads_counted` event per partner and credential, in one commit. */
  private async writeCounts(): Promise<void> {
    if (this.counted.size === 0) return;
    const counts = [...this.counted.values()];
    this.counted.clear();
    const written = (async () => {
      try {
        const em = this.fork();
        for (const c of counts) {
          recordEvent(
            em,
            makeEvent(READS_COUNTED, c.partnerGpid, {
              partner_gpid: c.partnerGpid,
              count: c.count,
              first_request_id: c.firstRequestId,
              last_request_id: c.lastRequestId,
              first_resource_type: c.resourceType,
              first_interaction: c.interaction,
              ...(c.credentialId ? { credential_id: c.credentialId } : {}),
            }),
          );
        }
        await em.flush();
        this.published();
      } catch (err) {
        this.onError(err);
        this.restoreCounts(counts);
      }
    })().finally(() => this.writing.delete(written));
    this.writing.add(written);
    await written;
  }

  /** Commit one read's own event after the read has its answer (a clean stop waits for it). */
  private writeOwn(event: EventEnvelope): void {
    const written = commitEvent(this.fork(), event)
      .then(() => this.published())
      .catch((err: unknown) => this.onError(err))
      .finally(() => this.writing.delete(written));
    this.writing.add(written);
  }

  /** `batched`: its own event if it opens a window, else a count. */
  private coalesce(report: ReadReport): void {
    const key = `${report.partnerGpid ?? ''}\u0000${report.resourceType}\u0000${report.interaction}\u0000${report.status}\u0000${report.credentialId ?? ''}`;
    const open = this.windows.get(key);
    if (open) {
      open.count += 1;
      open.firstRequestId ??= report.requestId;
      open.lastRequestId = report.requestId;
      return;
    }
    if (!this.closed) this.windows.set(key, { report, count: 0, firstRequestId: null, lastRequestId: null, timer: this.schedule(key) });
    this.writeOwn(readEvent(report, 1, report.requestId));
  }

  private schedule(key: string): NodeJS.Timeout {
    const timer = setTimeout(() => void this.end(key), READ_EVENT_WINDOW_MS);
    timer.unref();
    return timer;
  }

  /** A window ends: write its count, and keep counting for another second if any read came. */
  private async end(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (!window) return;
    if (window.count === 0 || this.closed) {
      this.windows.delete(key);
      if (window.count > 0) await this.write([window]);
      return;
    }
    const ended = { ...window };
    window.count = 0;
    window.firstRequestId = null;
    window.lastRequestId = null;
    window.timer = this.schedule(key);
    await this.write([ended]);
  }

  private async write(windows: readonly Window[]): Promise<void> {
    const pending = windows.filter((w) => w.count > 0);
    if (pending.length === 0) return;
    try {
      const em = this.fork();
      for (const w of pending) recordEvent(em, readEvent(w.report, w.count, w.firstRequestId ?? w.report.requestId, w.lastRequestId ?? undefined));
      await em.flush();
      this.published();
    } catch (err) {
      this.onError(err);
    }
  }

  /** Stop counting and write what open windows hold (before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.windows.values()];
    this.windows.clear();
    for (const w of open) clearTimeout(w.timer);
    clearTimeout(this.countTimer);
    this.countTimer = undefined;
    await Promise.all(this.writing);
    await this.write(open);
    await this.writeCounts();
  }
}
