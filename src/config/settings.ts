import type { ModelTask } from '../model/tasks';
import type { BillingSettings } from './billingSettings';
import type { RateLimitSettings } from './rateLimitSettings';

/** `auto`: readable lines on a terminal, JSON lines anywhere else (a file, a pipe, a log shipper). */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The settings every process reads from its environment (see ./index.ts), as typed values. */

export interface TemporalSettings {
  address: string;
  namespace: string;
  apiKey?: string;
  tls: boolean;
  tlsCertPath?: string;
  tlsKeyPath?: string;
  tlsCaPath?: string;
  tlsServerName?: string;
}

export interface TaskQueues {
  workflows: string;
  fetch: string;
  browser: string;
  model: string;
  /** Web searches of Research, served by the fetch role. */
  search: string;
}

export interface BrowserSettings {
  executablePath: string;
  /** Pages rendered at once per browser worker. */
  concurrency: number;
  /** Automate sessions (each a long-lived browser context) one browser worker holds at once. */
  sessions: number;
  /** Whole budget of one render: navigation, settling, scrolling. */
  renderTimeoutMs: number;
  /** Memory one page's renderer process may hold before it is ended (its JavaScript heap gets three quarters). */
  rendererMaxMb: number;
}

export interface FetchSettings {
  timeoutMs: number;
  /** The shorter limit of effort `min`, which trades completeness for a fast answer. */
  minEffortTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/** Where pages are read (parsed, converted): threads that can be stopped mid-page. */
export interface ConvertSettings {
  /** Conversion threads per worker process: pages read at once. */
  threads: number;
  /** Budget of one reading from when a thread takes it; past it the thread is stopped. */
  timeoutMs: number;
  /** Heap (V8 old generation) of one conversion thread; past it the thread is stopped. */
  maxHeapMb: number;
}

/**
 * Whose entries a request may read: its organization's own (the default), or every
 * organization's (CACHE_SCOPE=global), where one organization's hit tells it another fetched the
 * page, so only public pages belong there.
 */
export type CacheScope = 'organization' | 'global';
export const CACHE_SCOPES: readonly CacheScope[] = ['organization', 'global'];

export interface CacheSettings {
  /** 0 turns the cache off. */
  ttlMs: number;
  /** Whether organizations share entries; see CacheScope. */
  scope: CacheScope;
  dir: string;
  /** Set: one cache for every host, in Redis. */
  redisUrl?: string;
}

/** Where requests for a country go (spec §2.1): a proxy URL per ISO 3166-1 alpha-2 code. */
export interface GeoSettings {
  proxies: Map<string, string>;
  /** One proxy URL for every country, with `{country}` where the code goes. */
  template?: string;
}

/** Any OpenAI-compatible Chat Completions server. */
export interface ModelSettings {
  /** Unset: the openai package's default endpoint. */
  baseUrl?: string;
  apiKey?: string;
  /** Unset: the JSON operations answer 503. */
  model?: string;
  /** Per-task overrides of `model` (OPENAI_MODEL_<TASK>). */
  taskModels: Partial<Record<ModelTask, string>>;
  timeoutMs: number;
  /** Tokens of page content one request may carry; longer pages are extracted in chunks. */
  contentTokens: number;
  /** Answers that fail the caller's schema are shown their errors and asked again this often. */
  repairAttempts: number;
  /** Chunks at most; a page needing more is too large. */
  maxChunks: number;
}

/**
 * Time limits on receiving a request, never on answering it: an extraction may take minutes
 * once its body has arrived, but a client that trickles its headers or body is cut off.
 */
export interface ReceiveLimits {
  headersTimeoutMs: number;
  /** The whole request, headers and body, from its first byte. */
  requestTimeoutMs: number;
}

/** Browser origins allowed to call across origins (CORS); every other origin gets no CORS headers. */
export interface CorsSettings {
  /** For /v1: a server-to-server API with bearer keys, so none unless configured. */
  apiOrigins: string[];
  /** For /codec: the Temporal Web UI's origin, whose pages call it from the browser. */
  codecOrigins: string[];
}

/** One AES-256 key payloads are encrypted with, and the id that payloads sealed with it carry. */
export interface PayloadKey {
  id: string;
  key: Buffer;
}

/** The first key encrypts new payloads; every key decrypts the payloads it sealed. */
export type PayloadKeys = readonly [PayloadKey, ...PayloadKey[]];

export const PAYLOAD_KEYS_VARIABLE = 'PAYLOAD_KEYS';

/** The payload codec (src/temporal/payloadCodec.ts), and the remote codec the Temporal Web UI calls (/codec). */
export interface CodecSettings {
  /** Unset: the processes that talk to Temporal refuse to start (see requirePayloadKeys). */
  keys?: PayloadKeys;
  /** The path segment that lets the Web UI use it without a key. */
  secret?: string;
  /** Decompressed size of one payload, and of all payloads of one request, at most. */
  maxPayloadBytes: number;
  maxRequestBytes: number;
}

export const SEARCH_ENGINES = ['searxng', 'brave'] as const;
export type SearchEngineName = (typeof SEARCH_ENGINES)[number];

/** Where Research searches the web: a self-hosted SearXNG or a hosted search API. */
export interface SearchSettings {
  /** Unset: no engine is configured, and Research answers 503. */
  engine?: SearchEngineName;
  /** SearXNG's base URL; its JSON API is `GET /search?q=...&format=json`. */
  searxngUrl?: string;
  braveApiKey?: string;
  /** Brave's web search endpoint (another URL only for tests or a proxy in front of it). */
  braveUrl: string;
  timeoutMs: number;
}

export interface ResearchSettings {
  search: SearchSettings;
  /** Pages fetched and analyzed at once per research run. */
  pageConcurrency: number;
  /** Page text one analysis reads, in tokens (four characters each). */
  pageTokens: number;
}

export interface AutomateSettings {
  /** How long an interactive input request waits for its answer (spec 8: 2 minutes). */
  inputTimeoutMs: number;
  /** Screenshots at each step, sent as events when small. */
  screenshots: boolean;
}

/** The event streams of Research and Automate. */
export interface StreamSettings {
  /** A comment goes out after this long without an event, so proxies keep the connection open. */
  heartbeatMs: number;
  /** How long a run goes on with no client reading its events before it is cancelled. */
  disconnectGraceMs: number;
}

/** Prometheus metrics: the API's on its own port, each worker process's on one of its own. */
export interface MetricsSettings {
  /** Set: /metrics asks for `Authorization: Bearer <token>`. Unset: /metrics is open. */
  token?: string;
  /** The port of a worker process's /metrics, /health and /ready; 0 picks a free one (logged). */
  workerPort: number;
}

export interface Config {
  host: string;
  port: number;
  bodyLimitBytes: number;
  receive: ReceiveLimits;
  cors: CorsSettings;
  codec: CodecSettings;
  logLevel: string;
  /** Readable lines or JSON lines; `auto` picks readable ones on a terminal only. */
  logFormat: LogFormat;
  metrics: MetricsSettings;
  /**
   * How long a stopping process waits for work in flight: the API for its requests, a worker for
   * its activities, which are then cancelled and retried elsewhere.
   */
  shutdownGraceMs: number;
  /** `key:organization` pairs, created in the store at start; empty: the launcher makes a development key. */
  apiKeys: Map<string, string>;
  billing: BillingSettings;
  rateLimits: RateLimitSettings;
  temporal: TemporalSettings;
  taskQueues: TaskQueues;
  /** Hosts, IPs or CIDR ranges exempt from the internal-address block. Unsafe outside tests. */
  allowInternalHosts: string[];
  /**
   * Name servers that page fetches and the browser's guard proxy ask, instead of the system's
   * resolver; empty for the system's.
   */
  dnsServers: string[];
  fetch: FetchSettings;
  browser: BrowserSettings;
  geo: GeoSettings;
  model: ModelSettings;
  markdownMaxBytes: number;
  convert: ConvertSettings;
  cache: CacheSettings;
  stream: StreamSettings;
  research: ResearchSettings;
  automate: AutomateSettings;
  dataDir: string;
  workers: {
    workflowConcurrency: number;
    /** Record a stack for every promise of a workflow, for the Web UI's Stack Trace tab. */
    workflowStackTraces: boolean;
    fetchConcurrency: number;
    modelConcurrency: number;
    /** The nice value of a worker process that runs page roles only (fetch, browser). */
    pageWorkerNice: number;
  };
  embedded: { temporalPort: number; temporalUiPort: number; temporalCliPath?: string; postgresBinDir?: string };
  /**
   * The Temporal Web UI's address as a person's browser reaches it, for the playground's links to
   * a run; unset, the playground shows none rather than guess one that may not be there.
   */
  temporalUiUrl?: string;
}
