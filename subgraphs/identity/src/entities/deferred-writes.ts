import type { EventEnvelope } from '@svc/platform';
import type { ResolutionOutcome, SourceOrigin } from '../domain/index.js';
import { observeBoundaryHeader } from './boundary-observations.js';
import { recordResolutions } from './match-history.js';
import { stageEvents } from './outbox.js';
import { recordObservations } from './resolve-observations.js';
import { saveSourceRecordLinks, type SourceRecordLink } from './source-record-links.js';
import { confirmSourceCounts, type ConfirmationCount } from './sources.js';
import type { Sql } from './sql.js';

/**
 * The writes of resolves that nothing in their transaction reads back, gathered and written together
 * with multi-row statements before the transaction commits: match history, observations, source
 * confirmations (counted per GPID and source), source-record links (the last per record) and outbox
 * events (in the order they were made). A batch of resolves pays a few statements for them instead
 * of a few per resolve. What is read back within the transaction is written at once or flushed
 * first: `partnerLinks` reads the match history (call `flush` before it), and the boundary-header
 * observation answers whether it is new (its first occurrence per partner, path and day in the
 * batch runs its statement; the others are known not to be new).
 */
export class DeferredWrites {
  private history: ResolutionOutcome[] = [];
  private observations: ResolutionOutcome[] = [];
  private confirmations = new Map<string, ConfirmationCount>();
  private links: Array<{ link: SourceRecordLink; at: Date }> = [];
  private events: EventEnvelope[] = [];
  private readonly boundaries = new Set<string>();

  resolution(r: ResolutionOutcome): void {
    this.history.push(r);
    this.observations.push(r);
  }

  /** One confirmation of `gpid` by `source` at `at` (as `confirmSources`). */
  confirm(gpid: string, source: SourceOrigin, at: Date): void {
    const key = `${gpid}\u001f${source}`;
    const seen = this.confirmations.get(key);
    if (seen) {
      seen.last = at;
      seen.count++;
    } else this.confirmations.set(key, { gpid, source, first: at, last: at, count: 1 });
  }

  event(event: EventEnvelope): void {
    this.events.push(event);
  }

  sourceLink(link: SourceRecordLink, at: Date): void {
    this.links.push({ link, at });
  }

  /** `observeBoundaryHeader`, run once per partner, path and day of the batch. */
  async observeBoundary(tx: Sql, partnerGpid: string, path: string, source: SourceOrigin, at: Date): Promise<boolean> {
    const key = `${partnerGpid}\u001f${path}\u001f${at.toISOString().slice(0, 10)}`;
    if (this.boundaries.has(key)) return false;
    this.boundaries.add(key);
    return observeBoundaryHeader(tx, partnerGpid, path, source, at);
  }

  /** Writes what was gathered, in `tx`, and starts over. */
  async flush(tx: Sql): Promise<void> {
    const { history, observations, confirmations, links, events } = this;
    this.history = [];
    this.observations = [];
    this.confirmations = new Map();
    this.links = [];
    this.events = [];
    if (history.length > 0) await recordResolutions(tx, history);
    if (observations.length > 0) await recordObservations(tx, observations);
    if (confirmations.size > 0) await confirmSourceCounts(tx, [...confirmations.values()]);
    if (links.length > 0) await saveSourceRecordLinks(tx, links);
    if (events.length > 0) await stageEvents(tx, events);
  }
}
