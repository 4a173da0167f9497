import type { OperationId } from './operations';
import type { RunEvent } from './timeline';

const KEY_ITEM = 'webloom.playground.apiKey';
const RUN_ITEM = 'webloom.playground.run';

/**
 * The API key, in this browser only: for this tab's session unless the person asks to be
 * remembered on this device. It never goes into an address; it travels only as the bearer header.
 */
export const apiKeyStore = {
  load(): { key: string; remembered: boolean } {
    const remembered = localStorage.getItem(KEY_ITEM);
    if (remembered) return { key: remembered, remembered: true };
    return { key: sessionStorage.getItem(KEY_ITEM) ?? '', remembered: false };
  },
  save(key: string, remember: boolean): void {
    const [keep, drop] = remember ? [localStorage, sessionStorage] : [sessionStorage, localStorage];
    drop.removeItem(KEY_ITEM);
    if (key) keep.setItem(KEY_ITEM, key);
    else keep.removeItem(KEY_ITEM);
  },
};

/** A streamed run this tab follows, kept so a reload picks it up where it was. */
export interface StoredRun {
  operation: OperationId;
  /** What was asked, to show in the form again. */
  body: Record<string, unknown>;
  runId: string;
  workflowId?: string;
  traceId?: string;
  /** The events seen; only the latest screenshots keep their image (see SCREENSHOT_BUDGET_CHARS). */
  events: RunEvent[];
  /** Input requests already answered here. */
  answered: string[];
  finished: boolean;
}

/** Events kept at most; past that a reload reads the run again from its start. */
const MAX_KEPT_EVENTS = 1000;
/**
 * The base64 of the screenshots kept, newest first; older ones lose their image. A tab's storage
 * holds about 5 MB, and the events themselves need room too.
 */
const SCREENSHOT_BUDGET_CHARS = 1_500_000;

export const runStore = {
  load(): StoredRun | undefined {
    try {
      const stored = JSON.parse(sessionStorage.getItem(RUN_ITEM) ?? 'null') as StoredRun | null;
      const valid =
        stored && typeof stored.runId === 'string' && Array.isArray(stored.events) && typeof stored.body === 'object';
      return valid ? stored : undefined;
    } catch {
      return undefined;
    }
  },
  /**
   * Keeps the run; when its events do not fit (a full storage quota), keeps it without them, and a
   * reload then reads every event again instead of resuming after the last one.
   */
  save(run: StoredRun): void {
    const events = run.events.length > MAX_KEPT_EVENTS ? [] : withLatestImages(run.events);
    try {
      sessionStorage.setItem(RUN_ITEM, JSON.stringify({ ...run, events }));
    } catch {
      sessionStorage.setItem(RUN_ITEM, JSON.stringify({ ...run, events: [] }));
    }
  },
  clear(): void {
    sessionStorage.removeItem(RUN_ITEM);
  },
};

function withLatestImages(events: RunEvent[]): RunEvent[] {
  let budget = SCREENSHOT_BUDGET_CHARS;
  const kept = [...events];
  for (let index = kept.length - 1; index >= 0; index--) {
    const event = kept[index]!;
    const image = event.data.image;
    if (image === undefined) continue;
    if (typeof image === 'string' && image.length <= budget) {
      budget -= image.length;
      continue;
    }
    const data = { ...event.data };
    delete data.image;
    kept[index] = { ...event, data };
  }
  return kept;
}
