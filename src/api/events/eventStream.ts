import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { sseComment, sseEvent } from '../../events/sse';
import type { AnyStreamedOperation } from '../../events/streams';
import type { ApiState } from '../state';
import type { EventRelay } from './eventRelay';
import { timeRelay } from './runReader';

export interface StreamTarget {
  workflowId: string;
  operation: AnyStreamedOperation;
  /** The last id the client holds (0: none). */
  after: number;
}

/** Resolves when the body can take more, or is gone. */
function drained(body: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      body.off('drain', done);
      body.off('close', done);
      resolve();
    };
    body.on('drain', done);
    body.on('close', done);
  });
}

/**
 * Answers the request with the run's events as Server-Sent Events: the headers and a first
 * comment at once, then each event as the relay has it, a comment after `heartbeatMs` without
 * one, and the end of the response after the stream's last event (or, when the server shuts
 * down, after a comment saying where to resume). A client that goes away closes its
 * subscription; the run goes on (see EventLog for the grace period).
 */
export function streamEvents(
  ctx: Context & { state: ApiState },
  relay: EventRelay,
  target: StreamTarget,
  heartbeatMs: number,
): void {
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('cache-control', 'no-cache, no-transform');
  // Proxies such as nginx would otherwise hold events back in their buffers.
  ctx.set('x-accel-buffering', 'no');
  const body = new PassThrough();
  ctx.body = body;
  const openedAt = Date.now();
  const subscription = relay.subscribe(target.workflowId, target.operation, target.after);
  const heartbeat = setTimeout(function beat() {
    body.write(sseComment('keep-alive'));
    heartbeat.refresh();
  }, heartbeatMs);
  const write = (text: string): boolean => {
    heartbeat.refresh();
    return body.write(text);
  };
  body.once('close', () => {
    clearTimeout(heartbeat);
    subscription.close();
  });
  write(sseComment('connected'));

  void (async () => {
    let delivered = 0;
    try {
      for (let batch = await subscription.next(); batch; batch = await subscription.next()) {
        for (const event of batch) {
          if (!write(sseEvent(event.id, event.event, event.data))) await drained(body);
          timeRelay(relay.relayed, 'sent', [event], openedAt);
          delivered++;
        }
      }
      if (subscription.interrupted) {
        const runId = ctx.response.get('x-run-id');
        write(sseComment(`server shutting down; resume at GET /v1/runs/${runId}/events with Last-Event-ID`));
      }
      ctx.state.log.info({ delivered, ended: !body.destroyed }, 'event stream finished');
    } catch (err) {
      ctx.state.log.error({ err, delivered }, 'event stream failed');
    } finally {
      clearTimeout(heartbeat);
      subscription.close();
      body.end();
    }
  })();
}
