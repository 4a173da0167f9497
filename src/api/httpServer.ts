import http from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { ReceiveLimits } from '../config';
import { ERRORS, type ErrorCode } from '../errors';
import type { ApiState } from './state';

/**
 * How often Node looks for requests past their limits (its default is 30 s, which would let a
 * request overstay its limit by that much): the limits hold to within this interval.
 */
const CHECK_INTERVAL_MS = 1000;

function errorCodeOf(err: NodeJS.ErrnoException): ErrorCode {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  return 'malformed_request';
}

function rawResponse(code: ErrorCode): string {
  const { status, message } = ERRORS[code];
  const body = JSON.stringify({ error: message });
  return [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The API's HTTP server. Node's `requestTimeout` covers receiving a request only (it stops
 * counting once the body is complete), so it bounds slow clients without cutting long answers.
 * Requests cut off, and malformed ones, get the API's JSON error shape instead of Node's bare
 * status line.
 */
export function createHttpServer(app: Koa<ApiState>, limits: ReceiveLimits): http.Server {
  const handle = app.callback();
  // The response each connection is answering, so an error never lands in the middle of one.
  const answering = new WeakMap<Duplex, http.ServerResponse>();
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: CHECK_INTERVAL_MS,
    },
    (req, res) => {
      answering.set(req.socket, res);
      res.once('finish', () => answering.get(req.socket) === res && answering.delete(req.socket));
      void handle(req, res);
    },
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (socket.writable && !answering.get(socket)?.headersSent) socket.write(rawResponse(errorCodeOf(err)));
    socket.destroy();
  });
  return server;
}
