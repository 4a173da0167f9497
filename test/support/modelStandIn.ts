import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveRefs } from './snapshotRefs';

/**
 * A stand-in for an OpenAI-compatible model server, for tests and benchmarks: a real HTTP
 * server speaking the Chat Completions protocol as the `openai` package calls it (bearer key,
 * `response_format`, `usage`, error bodies, `Retry-After`). Its answers are scripted per test
 * through a control path; unscripted, it answers at once with the smallest object that
 * matches the requested JSON Schema.
 */

export interface ScriptedReply {
  /**
   * The assistant message content of a 200 answer. `{{ref:<role> "<name>"}}` in it becomes the
   * ref the request's latest page snapshot gives that element (see snapshotRefs.ts).
   */
  content?: string;
  /** An error answer instead. */
  status?: number;
  message?: string;
  headers?: Record<string, string>;
  /** Answered after this pause, as a slow model would: long enough to lose its worker meanwhile. */
  delayMs?: number;
  /** A 200 whose body is this text instead of a completion: a proxy's error page, say. */
  raw?: string;
  /** The connection dropped halfway through a 200's body, as a server that dies mid-answer. */
  cut?: boolean;
  /** Halfway through a 200's body nothing more comes, and the connection stays open: a server that hangs mid-answer. */
  stall?: boolean;
}

/** A reply for requests of one JSON Schema name, maybe only those whose messages contain `when`. */
export interface FormatReply extends ScriptedReply {
  when?: string;
  /** Answer every matching request, instead of the first only. */
  keep?: boolean;
}

export interface StandInScript {
  replies: ScriptedReply[];
  /**
   * Replies by the requested schema's name (`response_format.json_schema.name`), for callers
   * that ask several things at once in any order (Research analyzes pages in parallel): the first
   * reply whose `when` the request's messages contain answers it. Others fall back to `replies`.
   */
  byFormat?: Record<string, FormatReply[]>;
  /** False: `json_schema` response formats get the 400 a server without structured output gives. */
  jsonSchemaSupported?: boolean;
  /** Every answer after this pause, as a real model's pace, unless its reply sets its own. */
  delayMs?: number;
}

export interface ModelStandIn {
  baseUrl: string;
  apiKey: string;
  model: string;
  close(): Promise<void>;
}

export const STAND_IN_KEY = 'stand-in-model-key';
export const STAND_IN_MODEL = 'stand-in-model';

/** The smallest value of a schema: what an instant, valid answer needs. */
function minimalValue(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const node = schema as Record<string, unknown>;
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum)) return node.enum[0];
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  switch (type) {
    case 'object': {
      const properties = (node.properties as Record<string, unknown>) ?? {};
      const required = Array.isArray(node.required) ? (node.required as string[]) : [];
      return Object.fromEntries(required.map((key) => [key, minimalValue(properties[key])]));
    }
    case 'array':
      return [];
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

function formatReply(
  script: StandInScript,
  name: string | undefined,
  messages: { content?: unknown }[] = [],
): ScriptedReply | undefined {
  const replies = name === undefined ? undefined : script.byFormat?.[name];
  if (!replies) return undefined;
  const text = messages
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
    .join('\n');
  const index = replies.findIndex((reply) => reply.when === undefined || text.includes(reply.when));
  if (index < 0) return undefined;
  const reply = replies[index]!;
  if (!reply.keep) replies.splice(index, 1);
  return reply;
}

function errorBody(status: number, message: string): string {
  const type =
    status === 401
      ? 'authentication_error'
      : status === 429
        ? 'rate_limit_error'
        : status >= 500
          ? 'server_error'
          : 'invalid_request_error';
  return JSON.stringify({ error: { message, type, param: null, code: null } });
}

export async function startModelStandIn(host = '127.0.0.1'): Promise<ModelStandIn> {
  let script: StandInScript = { replies: [] };
  const received: unknown[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const send = (status: number, body: string, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
      if (req.url === '/__control/script' && req.method === 'POST') {
        script = JSON.parse(text) as StandInScript;
        received.length = 0;
        return send(200, '{}');
      }
      if (req.url === '/__control/requests') return send(200, JSON.stringify(received));
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST')
        return send(404, errorBody(404, `no route ${req.method} ${req.url}`));
      if (req.headers.authorization !== `Bearer ${STAND_IN_KEY}`)
        return send(401, errorBody(401, 'Incorrect API key provided.'));
      let body: {
        model?: string;
        messages?: { content?: unknown }[];
        response_format?: { type?: string; json_schema?: { name?: string; schema?: unknown } };
      };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        return send(400, errorBody(400, 'We could not parse the JSON body of your request.'));
      }
      received.push({ ...body, receivedAt: Date.now() });
      if (body.model !== STAND_IN_MODEL)
        return send(404, errorBody(404, `The model \`${body.model}\` does not exist or you do not have access to it.`));
      if (body.response_format?.type === 'json_schema' && script.jsonSchemaSupported === false) {
        return send(
          400,
          errorBody(
            400,
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
          ),
        );
      }
      const reply =
        formatReply(script, body.response_format?.json_schema?.name, body.messages) ?? script.replies.shift();
      const answer = () => {
        if (reply?.status)
          return send(reply.status, errorBody(reply.status, reply.message ?? 'scripted error'), reply.headers);
        if (reply?.raw !== undefined) return res.writeHead(200, { 'content-type': 'application/json' }).end(reply.raw);
        const content =
          reply?.content !== undefined
            ? resolveRefs(reply.content, body.messages ?? [])
            : JSON.stringify(minimalValue(body.response_format?.json_schema?.schema ?? { type: 'object' }));
        const promptTokens = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
        const completionTokens = Math.ceil(content.length / 4);
        const completion = JSON.stringify({
          id: `chatcmpl-${received.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: STAND_IN_MODEL,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content, refusal: null },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
          },
        });
        if (!reply?.cut && !reply?.stall) return send(200, completion);
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(completion)),
        });
        res.write(completion.slice(0, completion.length >> 1), () => reply.cut && res.destroy());
      };
      const delayMs = reply?.delayMs ?? script.delayMs;
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://${host}:${port}/v1`,
    apiKey: STAND_IN_KEY,
    model: STAND_IN_MODEL,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
