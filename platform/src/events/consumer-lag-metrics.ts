import type { Metrics } from '../metrics.js';
import type { EventStream } from './stream.js';

/**
 * The stream a subgraph consumes, with each durable consumer it starts listed in the process's
 * metrics while it runs: `/metrics` then reports how far each one is behind
 * (`svc_event_consumer_lag_events`, `svc_event_consumer_oldest_age_seconds`), read from the stream's
 * own positions (`EventStream.lag`) at every scrape.
 */
export function withLagMetrics<S extends EventStream>(stream: S, metrics: Pick<Metrics, 'eventConsumers'>): S {
  return {
    ...stream,
    consume(name, handler, options) {
      const stop = stream.consume(name, handler, options);
      const lag = () => stream.lag(name);
      metrics.eventConsumers.set(name, lag);
      return async () => {
        if (metrics.eventConsumers.get(name) === lag) metrics.eventConsumers.delete(name);
        await stop();
      };
    },
  };
}
