import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { cacheLookups, type CacheLookups } from './countedCache';

/** What the API counts, in its own registry (tests run several APIs in one process). */
export interface ApiMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  requestSeconds: Histogram<'method' | 'route' | 'status'>;
  runsStarted: Counter<'operation'>;
  cacheLookups: CacheLookups;
  creditsCharged: Counter<'operation'>;
  creditsRefunded: Counter<'operation'>;
  eventRelaySeconds: Histogram<'stage'>;
}

/** Seconds: a cache hit takes milliseconds, a JSON extraction with a slow model minutes. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** Seconds from a workflow recording an event to this process reading it, then sending it on. */
const RELAY_BUCKETS = [
  0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.75,
  1, 1.5, 2, 5,
];

/** `openStreams` tells how many event streams this process is serving, read at each scrape. */
export function createApiMetrics(openStreams: () => number): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'webloom_event_streams_open',
    help: 'Event streams (Research, Automate) this API process is serving',
    registers: [registry],
    collect() {
      this.set(openStreams());
    },
  });
  return {
    registry,
    requests: new Counter({
      name: 'webloom_http_requests_total',
      help: 'Requests answered, by method, route (the pattern, or "unmatched") and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'webloom_http_request_duration_seconds',
      help: 'Time to answer a request; for an event stream, until the stream opened',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers: [registry],
    }),
    runsStarted: new Counter({
      name: 'webloom_runs_started_total',
      help: 'Workflows started, by operation',
      labelNames: ['operation'],
      registers: [registry],
    }),
    cacheLookups: cacheLookups(registry),
    creditsCharged: new Counter({
      name: 'webloom_credits_charged_total',
      help: 'Credits charged, by what was priced (extract-markdown, research-fast, cache-hit...)',
      labelNames: ['operation'],
      registers: [registry],
    }),
    creditsRefunded: new Counter({
      name: 'webloom_credits_refunded_total',
      help: 'Credits given back for runs that failed through our fault, by what was priced',
      labelNames: ['operation'],
      registers: [registry],
    }),
    eventRelaySeconds: new Histogram({
      name: 'webloom_event_relay_seconds',
      help:
        "Time from a live event's timestamp (the start of the workflow task that recorded it, on the " +
        'server\'s clock) to this process: reading it (stage "read"), then writing it into a client\'s ' +
        'stream (stage "sent")',
      labelNames: ['stage'],
      buckets: RELAY_BUCKETS,
      registers: [registry],
    }),
  };
}
