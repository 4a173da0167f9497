/**
 * The Automate stream (spec §6.1): each event name and its payload. Where the spec leaves a
 * payload open, the official client's `AutomateEvent` types decide; test/eventTypes.test.ts
 * checks that every payload here is assignable to them, and that the names are the same set.
 */

/** Progress events name the agent loop's iteration they belong to, and when they happened. */
export interface InIteration {
  iterationId: string;
  /** Milliseconds since the epoch, when the workflow recorded the event. */
  timestamp: number;
}

export type FieldType =
  'text' | 'email' | 'phone' | 'date' | 'number' | 'select' | 'checkbox' | 'radio' | 'textarea' | 'password' | 'other';

/** A form field the agent asks the caller to fill (interactive mode). */
export interface RequestedField {
  ref: string;
  label: string;
  fieldType: FieldType;
  required: boolean;
  description?: string;
  options?: string[];
  currentValue?: string;
}

export interface FormDataRequest extends InIteration {
  requestId: string;
  fields: RequestedField[];
  formDescription: string;
  pageTitle: string;
  pageUrl: string;
}

export interface TaskMetrics extends InIteration {
  stepCount: number;
  aiGenerationCount: number;
  aiGenerationErrorCount: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  eventCounts: Record<string, number>;
}

/** The messages of a model call as events show them: text only. */
export type ModelMessage =
  { role: 'system'; content: string } | { role: 'user'; content: string } | { role: 'assistant'; content: string };

export type AutomateErrorCode = 'TASK_ABORTED' | 'MAX_ITERATIONS' | 'MAX_ERRORS' | 'TASK_FAILED';

/** Each event's own fields, before the workflow adds its `message` (see AutomateEvents). */
export interface AutomatePayloads {
  start: { task: string; url: string };
  'task:setup': InIteration & {
    task: string;
    browserName: string;
    url?: string;
    data?: unknown;
    guardrails?: string;
    model?: string;
    provider?: string;
    proxy?: string;
    vision?: boolean;
  };
  'task:started': InIteration & {
    task: string;
    url: string;
    plan: string;
    successCriteria: string;
    actionItems?: string[];
  };
  /** Its `message` says how the task ended, a failure's reason in the words of `complete.error`. */
  'task:completed': InIteration & { finalAnswer: string | null; success?: boolean; message: string };
  'task:aborted': InIteration & { reason: string; finalAnswer: string };
  'task:validated': InIteration & {
    completionQuality: 'failed' | 'partial' | 'complete' | 'excellent';
    finalAnswer: string;
    observation: string;
    feedback?: string;
  };
  'task:validation_error': InIteration & { errors: string[]; rawResponse: unknown; retryCount: number };
  'task:metrics': TaskMetrics;
  'task:metrics_incremental': TaskMetrics;
  'task:trace_context': { traceId: string };
  'agent:processing': InIteration & { operation: string; hasScreenshot: boolean };
  'agent:status': InIteration & { message: string };
  'agent:step': InIteration & { currentIteration: number };
  'agent:action': InIteration & { action: string; ref?: string | null; value?: string | null };
  'agent:reasoned': InIteration & { reasoning: string };
  /** `extractedData` is serialized JSON (spec §6.1). */
  'agent:extracted': InIteration & { extractedData: string };
  'agent:waiting': InIteration & { seconds: number };
  'browser:navigated': InIteration & { title: string; url: string };
  'browser:action_started': InIteration & { action: string; ref?: string | null; value?: string | null };
  'browser:action_completed': InIteration & { success: boolean; error?: string };
  'browser:screenshot_captured': InIteration & { format: 'jpeg' | 'png'; size: number };
  /** `image` is base64; only small, scaled screenshots travel as events. */
  'browser:screenshot_captured_image': InIteration & { image: string; mediaType: 'image/jpeg' | 'image/png' };
  'browser:reconnected': InIteration & { startingUrl: string; endpointIndex: number; total: number };
  'cdp:endpoint_connected': InIteration & { endpointIndex: number; total: number };
  'cdp:endpoint_cycle': InIteration & { attempt: number; total: number; error: string };
  'ai:generation': InIteration & {
    prompt: string;
    schema: unknown;
    finishReason: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';
    usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
    messages?: ModelMessage[];
    object?: unknown;
    temperature?: number;
  };
  'ai:generation:error': InIteration & { error: string; prompt: string; schema: unknown; messages?: ModelMessage[] };
  'system:debug_compression': InIteration & {
    originalSize: number;
    compressedSize: number;
    compressionPercent: number;
  };
  'system:debug_message': InIteration & { messages: unknown[] };
  'interactive:form_data:request': FormDataRequest;
  'interactive:form_data:error': FormDataRequest & { fieldErrors: Record<string, string> };
  complete: {
    success: boolean;
    finalAnswer: string | null;
    stats: { iterations: number; actions: number; durationMs: number; startTime: number; endTime: number };
    error?: { code: AutomateErrorCode; message: string };
  };
  /** The last event of a stream that ran to its end. */
  done: Record<string, never>;
  error: { success: false; error: { code: string; message: string; timestamp: string }; message: string };
}

/**
 * The stream's events: each carries a short `message` for a person, as research's events do (and the hosted
 * service's), which is what clients print in a timeline (the Go CLI shows it after the event's
 * name). The client's types leave it out of most payloads; it is one more field, which they
 * ignore. `done` alone stays the empty object spec 6.1 makes it.
 */
export type AutomateEvents = {
  [E in keyof AutomatePayloads]: E extends 'done' ? AutomatePayloads[E] : AutomatePayloads[E] & { message: string };
};
