import path from 'node:path';
import { Piscina } from 'piscina';
import type { ConvertSettings } from '../config';
import { ServiceError } from '../errors';
import type { PageBody } from '../extraction/pageToMarkdown';
import { tooCostly, type PageReading, type ReadingOf, type ReadSettings } from './readPage';
import type { ReadingOutcome, ReadingStarted, ReadingTask } from './readingThread';

export interface ReadOptions {
  /** Fetched HTML: also tell whether a browser would see more of it. */
  detectShell: boolean;
  /** The activity's cancellation: a reading nobody waits for any more is stopped. */
  signal?: AbortSignal;
}

export interface PageRead<R extends PageReading> {
  reading: ReadingOf<R>;
  needsBrowser: boolean;
}

/**
 * The body's bytes as an ArrayBuffer the thread can take over. A Buffer that is all of its own
 * ArrayBuffer (any download over 4 KB) is moved; a small one sharing Node's buffer pool is copied.
 */
function movableBytes(body: Buffer): Uint8Array<ArrayBuffer> {
  const { buffer } = body;
  const own = buffer instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === buffer.byteLength;
  return own ? new Uint8Array(buffer) : new Uint8Array(body);
}

/**
 * Reads pages on worker threads, one page per thread at a time, so a page that would take
 * minutes or gigabytes costs a bounded amount instead: a reading past CONVERT_TIMEOUT_MS, or
 * past CONVERT_MAX_HEAP_MB of heap, has its thread terminated (piscina replaces it) and fails
 * for good. Meanwhile the worker's event loop stays free to fetch, render and heartbeat.
 */
export class ReadingPool {
  private readonly pool: Piscina<ReadingTask, ReadingOutcome>;
  /** Starts each running reading's budget clock, by task id. */
  private readonly onStart = new Map<number, () => void>();
  private nextId = 0;

  constructor(
    private readonly settings: ConvertSettings,
    private readonly read: ReadSettings,
  ) {
    this.pool = new Piscina({
      filename: path.join(__dirname, 'readingThread.js'),
      minThreads: settings.threads,
      maxThreads: settings.threads,
      concurrentTasksPerWorker: 1,
      idleTimeout: Infinity,
      // The young generation of the worker processes' --max-semi-space-size=64 (three semi-spaces):
      // a page's DOM is allocated node by node, and a small one is scavenged every few pages.
      resourceLimits: { maxOldGenerationSizeMb: settings.maxHeapMb, maxYoungGenerationSizeMb: 192 },
    });
    this.pool.on('message', (message: ReadingStarted) => this.onStart.get(message.started)?.());
  }

  async readPage<R extends PageReading>(page: PageBody, reading: R, options: ReadOptions): Promise<PageRead<R>> {
    const id = this.nextId++;
    const budget = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    this.onStart.set(id, () => (timer = setTimeout(() => budget.abort(), this.settings.timeoutMs)));
    const body = movableBytes(page.body);
    const task: ReadingTask = {
      id,
      body,
      contentType: page.contentType,
      finalUrl: page.finalUrl,
      truncated: page.truncated,
      reading,
      settings: this.read,
      detectShell: options.detectShell,
    };
    let outcome: ReadingOutcome;
    try {
      outcome = await this.pool.run(task, {
        transferList: [body.buffer],
        signal: options.signal ? AbortSignal.any([budget.signal, options.signal]) : budget.signal,
      });
    } catch (err) {
      if (budget.signal.aborted)
        throw tooCostly(reading, `reading ${page.finalUrl} took over ${this.settings.timeoutMs} ms`);
      if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw tooCostly(reading, `reading ${page.finalUrl} took over ${this.settings.maxHeapMb} MB of heap`);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      this.onStart.delete(id);
    }
    if ('failure' in outcome) throw new ServiceError(outcome.failure.code, outcome.failure.detail);
    return { reading: outcome.reading as ReadingOf<R>, needsBrowser: outcome.needsBrowser };
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
