import net from 'node:net';

/** Calls the real API over HTTP, as a client would. */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Every API replica's base URL: one on the dev stack, two on the cluster topology. */
export function apiUrls(): string[] {
  const urls = process.env.TEST_API_URLS ? (JSON.parse(process.env.TEST_API_URLS) as string[]) : [];
  const url = process.env.TEST_API_URL;
  if (urls.length === 0 && !url) throw new Error('TEST_API_URL is not set: tests run under the jest global setup');
  return urls.length > 0 ? urls : [url!];
}

let nextReplica = 0;

/**
 * An API's base URL, each call the next replica's in turn, so the suite's requests exercise
 * every replica and any state one replica keeps that the others lack shows as a failure.
 */
export function apiUrl(): string {
  const urls = apiUrls();
  return urls[nextReplica++ % urls.length]!;
}

export function apiKey(): string {
  return process.env.TEST_API_KEY ?? '';
}

export async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { json?: unknown; raw?: string; key?: string | null; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  const key = options.key === undefined ? apiKey() : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const response = await fetch(`${apiUrl()}${path}`, {
    method,
    headers,
    body: options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json)),
  });
  const text = await response.text();
  let body: T;
  try {
    body = JSON.parse(text) as T;
  } catch {
    body = {} as T;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export const post = <T = Record<string, unknown>>(path: string, json: unknown, key?: string | null) =>
  call<T>('POST', path, { json, key });

export interface RawExchange {
  /** Everything the server sent. */
  text: string;
  /** Whether the server closed the connection before the deadline. */
  closed: boolean;
  ms: number;
}

/** Writes bytes to the API's port as they are, then reads until the server closes or the deadline passes. */
export async function rawExchange(request: string, deadlineMs: number): Promise<RawExchange> {
  const { hostname, port } = new URL(apiUrl());
  const started = Date.now();
  const socket = net.connect(Number(port), hostname);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  socket.write(request);
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), deadlineMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.once('error', () => undefined);
  });
  socket.destroy();
  return { text, closed, ms: Date.now() - started };
}

/** A setting of the stack under test, as the API process sees it. */
export function stackSetting(name: string): string | undefined {
  return (JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as Record<string, string | undefined>)[name];
}
