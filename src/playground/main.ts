import { inputForm, formRequestOf, type InputAnswer } from './inputForm';
import {
  OPERATIONS,
  operationById,
  requestBody,
  type FieldSpec,
  type FieldValue,
  type OperationSpec,
} from './operations';
import { el, externalLink, jsonBlock, linkCitations, markdownPair, safeHref } from './render';
import { checkSchema } from './schemaCheck';
import { readEvents, type SseEvent } from './sse';
import { apiKeyStore, runStore, type StoredRun } from './storage';
import { Timeline, type RunEvent } from './timeline';

/** What the API tells the page about where it runs (src/api/routes/playground.ts). */
interface PlaygroundSettings {
  temporalUiUrl: string | null;
  namespace: string;
}

/** Tries after a stream breaks off before the run's end, each after a longer pause. */
const RECONNECT_ATTEMPTS = 5;
const RECONNECT_PAUSE_MS = 1000;
/** How often a followed run's events are written to the tab's storage at most. */
const SAVE_EVERY_MS = 500;
const API = '/v1';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

let settings: PlaygroundSettings = { temporalUiUrl: null, namespace: 'default' };
let current: AbortController | undefined;

function apiKey(): string {
  return byId<HTMLInputElement>('api-key').value.trim();
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${apiKey()}`, ...extra };
}

/** The status line screen readers announce. */
function announce(text: string): void {
  byId('status').textContent = text;
}

/** An error answer's message (spec 2.12), or the status alone. */
async function errorText(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  let message = text.slice(0, 2000);
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON (a proxy's page, say): its text as it is.
  }
  const hint = response.status === 401 ? ' Check the API key.' : '';
  return `${response.status}${message ? `: ${message}` : ''}.${hint}`;
}

function showError(text: string): void {
  const box = el('div', { className: 'error-box', text });
  box.setAttribute('role', 'alert');
  byId('result').append(box);
  announce(`Failed: ${text}`);
}

/** `url` without the slashes it ends with; a loop, since /\/+$/ backtracks on many slashes not at the end. */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

/** The Web UI's page of a run; its Temporal run id is the answer's trace id once a run started. */
function webUiLink(workflowId: string | null, traceId: string | null): HTMLElement | undefined {
  const base = safeHref(settings.temporalUiUrl);
  if (!base || !workflowId) return undefined;
  const workflow = `${withoutTrailingSlashes(base)}/namespaces/${encodeURIComponent(settings.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  const run = traceId && /^[0-9a-f-]{36}$/i.test(traceId) ? `/${traceId}/history` : '';
  const link = externalLink(`${workflow}${run}`, 'Open in the Temporal Web UI');
  link.id = 'web-ui-link';
  return link;
}

/** The ids of an answer, shown above its result. */
function showRunMeta(response: Response, runId?: string): void {
  const meta = byId('run-meta');
  meta.replaceChildren();
  const traceId = response.headers.get('x-trace-id');
  const workflowId = response.headers.get('x-workflow-id');
  const list = el('dl');
  const add = (term: string, value: string | null | undefined) => {
    if (value) list.append(el('dt', { text: term }), el('dd', {}, el('code', { text: value })));
  };
  add('Run id', runId);
  add('Trace id', traceId);
  add('Workflow', workflowId);
  meta.append(list);
  const link = webUiLink(workflowId, traceId);
  if (link) meta.append(el('p', {}, link));
}

// ---- The form ----

interface FieldControl {
  spec: FieldSpec;
  read(): { value: FieldValue } | { error: string };
  /** Shows a value the body had, as after a reload. */
  write(value: unknown): void;
  focus(): void;
}

let controls: FieldControl[] = [];

function fieldRow(spec: FieldSpec): [HTMLElement, FieldControl] {
  const id = `field-${spec.name.replace(/\W/g, '-')}`;
  const label = el('label', { text: spec.label + (spec.required ? ' (required)' : '') });
  label.htmlFor = id;
  const row = el('div', { className: 'field' });
  const describedBy: string[] = [];
  const note = (suffix: string, text: string, className: string) => {
    const node = el('p', { className, text });
    node.id = `${id}-${suffix}`;
    describedBy.push(node.id);
    return node;
  };
  const hint = spec.hint ? note('hint', spec.hint, 'hint') : undefined;
  let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  let read: FieldControl['read'];
  let write: FieldControl['write'] = (value) => (control.value = String(value));
  let status: HTMLElement | undefined;
  switch (spec.kind) {
    case 'select': {
      const select = el('select');
      select.append(el('option', { text: 'service default' }));
      select.options[0]!.value = '';
      select.append(...(spec.options ?? []).map((option) => el('option', { text: option })));
      control = select;
      read = () => ({ value: select.value || undefined });
      break;
    }
    case 'checkbox': {
      const box = el('input');
      box.type = 'checkbox';
      control = box;
      read = () => ({ value: box.checked });
      write = (value) => (box.checked = value === true);
      break;
    }
    case 'number': {
      const input = el('input');
      input.type = 'number';
      input.inputMode = 'numeric';
      if (spec.min !== undefined) input.min = String(spec.min);
      if (spec.max !== undefined) input.max = String(spec.max);
      control = input;
      read = () => (input.value.trim() === '' ? { value: undefined } : { value: Number(input.value) });
      break;
    }
    case 'json':
    case 'schema': {
      const area = el('textarea', { className: 'code' });
      area.rows = spec.kind === 'schema' ? 12 : 6;
      area.spellcheck = false;
      area.value = spec.initial ?? '';
      control = area;
      write = (value) => {
        area.value = JSON.stringify(value, null, 2);
        area.dispatchEvent(new Event('input'));
      };
      status = note('check', '', 'check');
      status.setAttribute('aria-live', 'polite');
      const shown = status;
      if (spec.kind === 'schema') {
        const update = () => {
          const verdict = checkSchema(area.value);
          shown.className = verdict.ok ? 'check ok' : 'check error';
          shown.textContent = verdict.ok ? `Valid JSON Schema (${verdict.draft}).` : verdict.errors.join('\n');
          area.setAttribute('aria-invalid', String(!verdict.ok));
          return verdict;
        };
        let timer: number | undefined;
        area.addEventListener('input', () => {
          clearTimeout(timer);
          timer = window.setTimeout(update, 150);
        });
        update();
        read = () => {
          const verdict = update();
          return verdict.ok ? { value: verdict.schema } : { error: `${spec.label}: ${verdict.errors[0]}` };
        };
      } else {
        read = () => {
          if (area.value.trim() === '') return { value: undefined };
          try {
            const value = JSON.parse(area.value) as unknown;
            if (typeof value === 'object' && value !== null && !Array.isArray(value))
              return { value: value as Record<string, unknown> };
            return { error: `${spec.label}: must be a JSON object` };
          } catch (err) {
            return { error: `${spec.label}: not JSON: ${(err as Error).message}` };
          }
        };
      }
      break;
    }
    case 'textarea': {
      const area = el('textarea');
      area.rows = 3;
      control = area;
      read = () => ({ value: area.value.trim() || undefined });
      break;
    }
    default: {
      const input = el('input');
      input.type = spec.kind === 'url' ? 'url' : 'text';
      if (spec.kind === 'url') input.inputMode = 'url';
      input.autocomplete = 'off';
      control = input;
      if (spec.kind === 'list') write = (value) => (input.value = Array.isArray(value) ? value.join(', ') : '');
      read =
        spec.kind === 'list'
          ? () => {
              const items = input.value
                .split(',')
                .map((item) => item.trim())
                .filter(Boolean);
              return { value: items.length > 0 ? items : undefined };
            }
          : () => ({ value: input.value.trim() || undefined });
    }
  }
  control.id = id;
  control.name = spec.name;
  if (spec.required) control.required = true;
  if (describedBy.length > 0) control.setAttribute('aria-describedby', describedBy.join(' '));
  if (spec.kind === 'checkbox') {
    row.classList.add('checkbox');
    row.append(control, label);
  } else {
    row.append(label, control);
  }
  if (hint) row.append(hint);
  if (status) row.append(status);
  return [row, { spec, read, write, focus: () => control.focus() }];
}

function selectedOperation(): OperationSpec {
  const checked = document.querySelector<HTMLInputElement>('input[name="operation"]:checked');
  return operationById(checked?.value ?? '') ?? OPERATIONS[0]!;
}

type FormControl = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** What a field holds as typed: the same field of the next operation starts with it. */
const typed = (control: FormControl) =>
  control instanceof HTMLInputElement && control.type === 'checkbox' ? control.checked : control.value;

function showFields(op: OperationSpec): void {
  const fields = byId('fields');
  const before = new Map<string, string | boolean>();
  fields.querySelectorAll<FormControl>('input, select, textarea').forEach((control) => {
    before.set(`${control.name}|${control.type}`, typed(control));
  });
  const rows: HTMLElement[] = [];
  controls = op.fields.map((spec) => {
    const [row, control] = fieldRow(spec);
    rows.push(row);
    return control;
  });
  byId('operation-summary').textContent = op.summary;
  fields.replaceChildren(...rows);
  byId('form-errors').replaceChildren();
  fields.querySelectorAll<FormControl>('input, select, textarea').forEach((control) => {
    const value = before.get(`${control.name}|${control.type}`);
    if (value === undefined) return;
    if (typeof value === 'boolean') (control as HTMLInputElement).checked = value;
    else control.value = value;
    control.dispatchEvent(new Event('input'));
  });
}

/** Puts a request's body back into the fields, as a reload found it. */
function fillForm(body: Record<string, unknown>): void {
  for (const control of controls) {
    const [outer, inner] = control.spec.name.split('.');
    const value = inner ? (body[outer!] as Record<string, unknown> | undefined)?.[inner] : body[outer!];
    if (value !== undefined) control.write(value);
  }
}

function readForm(): { body: Record<string, unknown> } | undefined {
  const values = new Map<string, FieldValue>();
  const problems: [FieldControl, string][] = [];
  for (const control of controls) {
    const read = control.read();
    if ('error' in read) problems.push([control, read.error]);
    else values.set(control.spec.name, read.value);
  }
  const box = byId('form-errors');
  box.replaceChildren();
  if (problems.length === 0) return { body: requestBody(values) };
  box.append(el('p', { text: 'Please fix:' }), el('ul', {}, ...problems.map(([, text]) => el('li', { text }))));
  problems[0]![0].focus();
  return undefined;
}

// ---- Results ----

function clearResult(): void {
  current?.abort();
  current = undefined;
  byId('result').replaceChildren();
  byId('run-meta').replaceChildren();
  byId('input-area').replaceChildren();
}

function showSyncResult(op: OperationSpec, body: unknown): void {
  const result = byId('result');
  if (op.id === 'extract-markdown') {
    const answer = body as { content?: unknown; metadata?: unknown };
    result.append(markdownPair(typeof answer.content === 'string' ? answer.content : ''));
    if (answer.metadata) result.append(el('h3', { text: 'Metadata' }), jsonBlock(answer.metadata, 'Page metadata'));
  } else {
    result.append(jsonBlock(body, 'The JSON answer'));
  }
  announce(`${op.title} finished.`);
}

async function runOperation(op: OperationSpec, body: Record<string, unknown>): Promise<void> {
  clearResult();
  runStore.clear();
  const controller = new AbortController();
  current = controller;
  announce(`${op.title}: running…`);
  let response: Response;
  try {
    response = await fetch(`${API}${op.path}`, {
      method: 'POST',
      headers: headers({
        'content-type': 'application/json',
        accept: op.streamed ? 'text/event-stream' : 'application/json',
      }),
      body: JSON.stringify(body),
      signal: controller.signal,
    });
  } catch (err) {
    if (!controller.signal.aborted) showError(`The request did not reach the API: ${(err as Error).message}`);
    return;
  }
  const runId = response.headers.get('x-run-id') ?? undefined;
  showRunMeta(response, runId);
  if (!response.ok) return showError(await errorText(response));
  if (!op.streamed) {
    const parsed = (await response.json().catch(() => undefined)) as unknown;
    if (parsed === undefined) return showError('The answer was not JSON.');
    return showSyncResult(op, parsed);
  }
  const run: StoredRun = {
    operation: op.id,
    body,
    runId: runId ?? '',
    workflowId: response.headers.get('x-workflow-id') ?? undefined,
    traceId: response.headers.get('x-trace-id') ?? undefined,
    events: [],
    answered: [],
    finished: false,
  };
  await new RunView(op, run, controller).follow(response);
}

/**
 * A streamed run on the page: its timeline, the form of a pending input request, its outcome. It
 * keeps what it saw in the tab's storage and, when the stream breaks off (or after a reload),
 * reads on from the last event it has (`Last-Event-ID`, spec's GET /runs/{runId}/events).
 */
class RunView {
  private readonly timeline: Timeline;
  private lastId = 0;
  private saveTimer: number | undefined;

  constructor(
    private readonly op: OperationSpec,
    private readonly run: StoredRun,
    private readonly controller: AbortController,
  ) {
    this.timeline = new Timeline(op.id === 'research' ? 'research' : 'automate');
    const heading = el('h3', { text: op.id === 'research' ? 'Timeline by phase' : 'Timeline by step' });
    byId('result').append(el('section', { className: 'timeline-box' }, heading, this.timeline.element));
    addEventListener('pagehide', this.saveNow);
    // A view left for another request must not store its run again once the store was cleared.
    controller.signal.addEventListener('abort', () => {
      removeEventListener('pagehide', this.saveNow);
      clearTimeout(this.saveTimer);
    });
    const replayed = run.events;
    run.events = [];
    for (const event of replayed) this.apply(event);
  }

  private readonly saveNow = () => {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.run.runId && !this.controller.signal.aborted) runStore.save(this.run);
  };

  private save(): void {
    this.saveTimer ??= window.setTimeout(this.saveNow, SAVE_EVERY_MS);
  }

  async follow(first?: Response): Promise<void> {
    let response = first;
    for (let attempt = 0; !this.run.finished && !this.controller.signal.aborted;) {
      try {
        response ??= await this.reconnect();
        if (!response.ok) return showError(await errorText(response));
        await readEvents(response, (event) => this.receive(event), this.controller.signal);
        attempt = 0;
      } catch (err) {
        if (this.controller.signal.aborted) return;
        if (err instanceof StreamRefused) return showError(err.message);
      }
      response = undefined;
      if (this.run.finished || this.controller.signal.aborted) break;
      if (++attempt > RECONNECT_ATTEMPTS) return showError('The stream broke off and could not be resumed.');
      announce(`Connection lost; reconnecting (try ${attempt} of ${RECONNECT_ATTEMPTS})…`);
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_PAUSE_MS * attempt));
    }
    this.saveNow();
  }

  /** Opens the run's stream again after the last event this view has. */
  private async reconnect(): Promise<Response> {
    if (!this.run.runId) throw new StreamRefused('The answer named no run id to resume.');
    const extra: Record<string, string> = { accept: 'text/event-stream' };
    if (this.lastId > 0) extra['last-event-id'] = String(this.lastId);
    const response = await fetch(`${API}/runs/${encodeURIComponent(this.run.runId)}/events`, {
      headers: headers(extra),
      signal: this.controller.signal,
    });
    if (response.ok) showRunMeta(response, this.run.runId);
    announce(`${this.op.title}: reconnected to run ${this.run.runId}.`);
    return response;
  }

  private receive(sse: SseEvent): void {
    const id = Number(sse.id);
    if (!Number.isSafeInteger(id) || id <= this.lastId) return;
    let data: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(sse.data) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) data = parsed as Record<string, unknown>;
    } catch {
      // A payload that is not JSON still shows in the timeline, by its name.
    }
    this.apply({ id, event: sse.event, data });
    this.save();
  }

  private apply(event: RunEvent): void {
    this.lastId = Math.max(this.lastId, event.id);
    this.run.events.push(event);
    this.timeline.add(event);
    const { data } = event;
    switch (event.event) {
      case 'interactive:form_data:request':
      case 'interactive:form_data:error': {
        const request = formRequestOf(data);
        if (request && !this.run.answered.includes(request.requestId)) this.askInput(request);
        break;
      }
      case 'complete':
        if (this.op.id === 'research') {
          this.showReport(data);
          this.finish('Research finished.');
        } else {
          this.showAutomateOutcome(data);
        }
        break;
      case 'done':
        this.finish('The task finished.');
        break;
      case 'error': {
        const error = data.error as { message?: unknown } | undefined;
        const message = typeof error?.message === 'string' ? error.message : String(data.message ?? 'failed');
        showError(`The run failed: ${message}`);
        this.finish();
        break;
      }
    }
  }

  private finish(text?: string): void {
    this.run.finished = true;
    byId('input-area').replaceChildren();
    if (text) announce(text);
    this.saveNow();
  }

  private askInput(request: NonNullable<ReturnType<typeof formRequestOf>>): void {
    const area = byId('input-area');
    const form = inputForm(request, async (answer: InputAnswer) => {
      const response = await fetch(`${API}/automate/${encodeURIComponent(request.requestId)}/input`, {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json' }),
        body: JSON.stringify(answer),
      }).catch(() => undefined);
      if (!response) return 'Not sent: the API could not be reached.';
      if (response.status === 202) {
        this.run.answered.push(request.requestId);
        this.saveNow();
        return 'cancelled' in answer ? 'Declined; the agent goes on without it.' : 'Sent; the agent goes on.';
      }
      if (response.status === 410) return 'Too late: the request expired or was already answered.';
      return `Not sent: ${await errorText(response)}`;
    });
    area.replaceChildren(form);
    announce('The agent asks for input.');
    form.querySelector('h3')?.focus();
  }

  private showReport(data: Record<string, unknown>): void {
    const metadata = (data.metadata ?? {}) as { citedPages?: { id?: unknown; url?: unknown; title?: unknown }[] };
    const sources = new Map<string, string>();
    const list = el('ol', { className: 'sources' });
    for (const page of Array.isArray(metadata.citedPages) ? metadata.citedPages : []) {
      const href = safeHref(page.url);
      if (typeof page.id !== 'string' || !href) continue;
      sources.set(page.id, href);
      const item = el('li', {}, externalLink(href, typeof page.title === 'string' && page.title ? page.title : href));
      item.value = Number(page.id) || 0;
      list.append(item);
    }
    const report = typeof data.report === 'string' ? data.report : '';
    const section = el('section', { className: 'report' }, el('h3', { text: 'Report' }));
    section.append(markdownPair(report, (rendered) => linkCitations(rendered, sources)));
    if (sources.size > 0) section.append(el('h3', { text: 'Sources' }), list);
    byId('result').prepend(section);
  }

  private showAutomateOutcome(data: Record<string, unknown>): void {
    const section = el('section', { className: 'outcome' }, el('h3', { text: 'Outcome' }));
    const success = data.success === true;
    section.append(el('p', { className: success ? 'ok' : 'error', text: success ? 'Succeeded.' : 'Did not succeed.' }));
    const error = data.error as { message?: unknown } | undefined;
    if (typeof error?.message === 'string') section.append(el('p', { className: 'error', text: error.message }));
    if (typeof data.finalAnswer === 'string' && data.finalAnswer)
      section.append(el('h4', { text: 'Final answer' }), markdownPair(data.finalAnswer));
    byId('result').prepend(section);
  }
}

class StreamRefused extends Error {}

// ---- Start ----

function setUpKey(): void {
  const input = byId<HTMLInputElement>('api-key');
  const remember = byId<HTMLInputElement>('remember-key');
  const stored = apiKeyStore.load();
  input.value = stored.key;
  remember.checked = stored.remembered;
  const save = () => apiKeyStore.save(input.value.trim(), remember.checked);
  input.addEventListener('input', save);
  remember.addEventListener('change', save);
}

function setUpOperations(): void {
  const group = byId('operations');
  OPERATIONS.forEach((op, index) => {
    const radio = el('input');
    radio.type = 'radio';
    radio.name = 'operation';
    radio.value = op.id;
    radio.id = `op-${op.id}`;
    radio.checked = index === 0;
    radio.addEventListener('change', () => showFields(op));
    const label = el('label', { className: 'op' }, radio, el('span', { text: op.title }));
    group.append(label);
  });
  showFields(OPERATIONS[0]!);
  byId<HTMLFormElement>('run-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const op = selectedOperation();
    const form = readForm();
    if (form) void runOperation(op, form.body);
  });
}

async function loadSettings(): Promise<void> {
  try {
    const response = await fetch('/playground/settings.json');
    if (response.ok) settings = (await response.json()) as PlaygroundSettings;
  } catch {
    // Without them the page works; it only shows no Web UI link.
  }
}

/** A run a reload interrupted: shown as far as it was kept, then followed from there. */
function resumeStoredRun(): void {
  const stored = runStore.load();
  const op = stored && operationById(stored.operation);
  if (!stored || !op || stored.finished) return;
  document.querySelector<HTMLInputElement>(`#op-${op.id}`)!.checked = true;
  showFields(op);
  fillForm(stored.body);
  const controller = new AbortController();
  current = controller;
  announce(`${op.title}: reconnecting to run ${stored.runId}…`);
  void new RunView(op, stored, controller).follow();
}

async function start(): Promise<void> {
  setUpKey();
  setUpOperations();
  await loadSettings();
  resumeStoredRun();
}

void start();
