import { parentPort } from 'node:worker_threads';
import { ServiceError, type ErrorCode } from '../errors';
import { needsBrowser } from '../extraction/scriptShell';
import { readPage, type PageReading, type ReadSettings } from './readPage';

/** One page to read on a conversion thread; its body arrives transferred, not copied. */
export interface ReadingTask {
  /** Announced when the task starts, so its time budget leaves out the wait for a free thread. */
  id: number;
  body: Uint8Array;
  contentType: string;
  finalUrl: string;
  truncated: boolean;
  reading: PageReading;
  settings: ReadSettings;
  /** Fetched HTML: also tell whether a browser would see more of it. */
  detectShell: boolean;
}

/** Errors lose their fields between threads: a ServiceError comes back as data. */
export type ReadingOutcome =
  { reading: unknown; needsBrowser: boolean } | { failure: { code: ErrorCode; detail?: string } };

/** The start message a conversion thread posts to the pool when it takes a task. */
export interface ReadingStarted {
  started: number;
}

/** Reads a page on a conversion thread (see ReadingPool): every step that scales with the page is here. */
export default async function readOnThread(task: ReadingTask): Promise<ReadingOutcome> {
  parentPort?.postMessage({ started: task.id } satisfies ReadingStarted);
  const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
  try {
    const shell = task.detectShell && needsBrowser(body.toString('utf8'));
    const reading = await readPage(
      { body, contentType: task.contentType, finalUrl: task.finalUrl, truncated: task.truncated },
      task.reading,
      task.settings,
    );
    return { reading, needsBrowser: shell };
  } catch (err) {
    if (err instanceof ServiceError) return { failure: { code: err.code, detail: err.detail } };
    throw err;
  }
}
