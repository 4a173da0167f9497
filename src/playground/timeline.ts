import { el } from './render';

/** One event of a run as the timeline keeps it. */
export interface RunEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** Items shown at most: a run of a hundred steps stays far below it, and the page stays light. */
const MAX_ITEMS = 2000;
/** A payload longer than this is cut in its "details" view. */
const MAX_PAYLOAD_CHARS = 20_000;
/** Longest base64 screenshot shown; the API sends scaled ones well below it. */
const MAX_SCREENSHOT_CHARS = 4 * 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png']);

/** Research phases that run inside an iteration, grouped under it (spec 6.2). */
const IN_ITERATION = new Set(['iteration', 'searching', 'analyzing', 'following', 'evaluating']);
/** Automate's closing events, grouped after the steps. */
const END_EVENTS = new Set(['complete', 'done', 'error']);
const PHASE_TITLES: Record<string, string> = {
  start: 'Start',
  prefetching: 'Prefetching the query’s pages',
  planning: 'Planning',
  outlining: 'Outlining',
  writing: 'Writing',
  judging: 'Judging',
  complete: 'Report',
  error: 'Error',
};

/** A screenshot event's image as a data URL, or undefined unless it is a JPEG or PNG in base64. */
export function screenshotUrl(data: Record<string, unknown>): string | undefined {
  const { image, mediaType } = data;
  if (typeof image !== 'string' || typeof mediaType !== 'string' || !IMAGE_TYPES.has(mediaType)) return undefined;
  if (image.length > MAX_SCREENSHOT_CHARS || !BASE64.test(image)) return undefined;
  return `data:${mediaType};base64,${image}`;
}

/**
 * A run's events as they arrive, grouped as a person follows the run: research by phase (the
 * phases of one iteration together), automate by the agent's step.
 */
export class Timeline {
  readonly element: HTMLElement;
  private readonly groups = new Map<string, HTMLOListElement>();
  private readonly steps = new Map<string, number>();
  private items = 0;
  private readonly overflow = el('p', { className: 'note' });

  constructor(private readonly kind: 'research' | 'automate') {
    this.element = el('div', { className: 'timeline' });
  }

  add(event: RunEvent): void {
    if (this.items >= MAX_ITEMS) {
      this.overflow.textContent = `Later events are not shown (over ${MAX_ITEMS}).`;
      if (!this.overflow.isConnected) this.element.append(this.overflow);
      return;
    }
    this.items++;
    const [key, title] = this.kind === 'research' ? this.phaseOf(event) : this.stepOf(event);
    let list = this.groups.get(key);
    if (!list) {
      list = el('ol');
      this.groups.set(key, list);
      const section = el('section', { className: 'group' }, el('h4', { text: title }), list);
      section.dataset.group = key;
      this.element.append(section);
    }
    list.append(this.item(event));
  }

  private phaseOf({ event, data }: RunEvent): [string, string] {
    const phase = event.split(':')[0]!;
    if (IN_ITERATION.has(phase) && typeof data.iteration === 'number')
      return [`iteration-${data.iteration}`, `Iteration ${data.iteration}`];
    return [phase, PHASE_TITLES[phase] ?? phase];
  }

  private stepOf({ event, data }: RunEvent): [string, string] {
    const iteration = data.iterationId;
    if (typeof iteration !== 'string') return END_EVENTS.has(event) ? ['end', 'End'] : ['task', 'Task'];
    let step = this.steps.get(iteration);
    if (step === undefined) {
      step = this.steps.size + 1;
      this.steps.set(iteration, step);
    }
    return [`step-${step}`, `Step ${step}`];
  }

  private item({ event, data }: RunEvent): HTMLLIElement {
    const message = typeof data.message === 'string' ? data.message : '';
    const item = el('li', {}, el('code', { className: 'event-name', text: event }));
    item.dataset.event = event;
    if (message) item.append(' ', el('span', { text: message }));
    const screenshot = event === 'browser:screenshot_captured_image' ? screenshotUrl(data) : undefined;
    if (screenshot) {
      const image = el('img', { className: 'screenshot' });
      image.src = screenshot;
      image.alt = 'The browser’s page at this step';
      item.append(image);
    }
    const extra = Object.keys(data).filter((name) => !['message', 'timestamp', 'iterationId', 'image'].includes(name));
    if (extra.length > 0) {
      const shown: Record<string, unknown> = {};
      for (const name of extra) shown[name] = data[name];
      const text = JSON.stringify(shown, null, 2);
      item.append(
        el(
          'details',
          {},
          el('summary', { text: 'Details' }),
          el('pre', {
            text: text.length > MAX_PAYLOAD_CHARS ? `${text.slice(0, MAX_PAYLOAD_CHARS)}\n… (cut)` : text,
          }),
        ),
      );
    }
    return item;
  }
}
