import { ERRORS, type ErrorCode } from '../../errors';

/** What each status means on this API (spec §7), for the description. */
const MEANINGS: Record<number, string> = {
  400: 'The request is not valid: the body is not a JSON object, or a field is missing or wrong. The message names the problem.',
  401: 'Missing or unknown API key.',
  402: "Out of credits (spec §7.1): the organization's balance does not cover the operation's price. No run is started.",
  404: 'No such resource for this organization.',
  408:
    'The request did not arrive in time (`HEADERS_TIMEOUT_MS`, `REQUEST_RECEIVE_TIMEOUT_MS`); the connection is ' +
    'closed.',
  410: 'The input request expired, was already answered, is unknown, or belongs to another organization.',
  413: 'The body is larger than `BODY_LIMIT_BYTES`.',
  422: 'The URL is not valid, or points to an internal address.',
  429:
    "Rate limit exceeded (spec §7.1): the organization's requests per minute or its research and automate runs " +
    'in flight, or, for requests without a good key, the failed authentications of their address. `Retry-After` ' +
    'says in how many seconds to try again. No run is started and nothing is charged.',
  500: 'The operation failed. The message says how, never with internals.',
  503: 'The service is not configured for this operation; the message names the settings to set.',
};

/** An error the operation answers with: a code of src/errors.ts, a status with its exact message, or a bare status. */
export type ErrorAnswer = ErrorCode | [status: number, message: string] | number;

/** The responses of an operation's errors, each status with the exact messages it carries as examples. */
export function errorResponses(answers: ErrorAnswer[]): Record<string, object> {
  const messages = new Map<number, string[]>();
  for (const answer of answers) {
    const [status, message] =
      typeof answer === 'number'
        ? [answer, undefined]
        : Array.isArray(answer)
          ? answer
          : [ERRORS[answer].status, ERRORS[answer].message];
    const list = messages.get(status) ?? [];
    if (message !== undefined && !list.includes(message)) list.push(message);
    messages.set(status, list);
  }
  const responses: Record<string, object> = {};
  for (const [status, list] of [...messages].sort(([a], [b]) => a - b)) {
    const meaning = MEANINGS[status];
    if (!meaning) throw new Error(`no meaning is written for status ${status}`);
    const examples = Object.fromEntries(list.map((message) => [message, { value: { error: message } }]));
    responses[String(status)] = {
      description: meaning,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ErrorResponse' },
          ...(list.length > 0 ? { examples } : {}),
        },
      },
    };
  }
  return responses;
}
