import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { sseMessages } from './sseClient';

/**
 * Checks real answers against an OpenAPI 3.1 document: the status is one the operation
 * describes, the content type one that status describes, and the body (for an event stream,
 * each event as `{id, event, data}`) matches its schema, with ajv (draft 2020-12, the document's
 * dialect). Remembers which operations and statuses it checked.
 */

type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  contentType: string;
  /** The parsed JSON body, or the events of a stream. */
  body: unknown;
}

/** Reads a fetch Response as the checker takes it: JSON parsed, an event stream split into events. */
export async function readAnswer(response: Response): Promise<Answer> {
  const contentType = response.headers.get('content-type') ?? '';
  let body: unknown;
  if (contentType.startsWith('text/event-stream')) {
    const events: Json[] = [];
    for await (const message of sseMessages(response)) {
      if (message.event !== undefined)
        events.push({ id: message.id, event: message.event, data: JSON.parse(message.data ?? 'null') as unknown });
    }
    body = events;
  } else {
    const text = await response.text();
    body = text === '' ? undefined : (JSON.parse(text) as unknown);
  }
  return { status: response.status, contentType, body };
}

const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export class ResponseChecker {
  /** `get /runs/{runId}/events 200`, for each answer checked. */
  readonly checked = new Set<string>();
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json & { paths: Record<string, Json> }) {
    this.ajv.addSchema({ ...document, $id: 'openapi' });
  }

  /** The problems of an answer to `method path` (the path as the document writes it); empty when it fits. */
  check(method: string, path: string, answer: Answer): string[] {
    this.checked.add(`${method} ${path} ${answer.status}`);
    const operation = this.document.paths[path]?.[method] as Json | undefined;
    if (!operation) return [`${method} ${path} is not described`];
    const responses = operation.responses as Record<string, Json>;
    const status = String(answer.status);
    const response = responses[status] ?? responses.default;
    if (!response) return [`${method} ${path} does not describe status ${status}`];
    const content = response.content as Record<string, Json> | undefined;
    if (!content) return answer.body === undefined ? [] : [`status ${status} is described without a body`];
    const mediaType = answer.contentType.split(';')[0]!.trim();
    if (!content[mediaType]) return [`status ${status} is not described as ${mediaType}`];
    const validate = this.validator(pointer('paths', path, method, 'responses', status, 'content', mediaType));
    const items = mediaType === 'text/event-stream' ? (answer.body as unknown[]) : [answer.body];
    return items.flatMap((item, index) =>
      validate(item)
        ? []
        : (validate.errors ?? []).map(
            (error) =>
              `${mediaType === 'text/event-stream' ? `event ${index + 1} ` : ''}` +
              `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`,
          ),
    );
  }

  private validator(mediaType: string): ValidateFunction {
    let validate = this.validators.get(mediaType);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi#/${mediaType}/schema` });
      this.validators.set(mediaType, validate);
    }
    return validate;
  }
}
