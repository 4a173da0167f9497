import os from 'node:os';
import path from 'node:path';
import { MODEL_TASKS, taskModelVariable } from '../model/tasks';
import { readBilling } from './billingSettings';
import { readRateLimits } from './rateLimitSettings';
import { ConfigError } from './configError';
import { CACHE_SCOPES, LOG_FORMATS, PAYLOAD_KEYS_VARIABLE, SEARCH_ENGINES } from './settings';
import type {
  CodecSettings,
  Config,
  GeoSettings,
  PayloadKeys,
  ReceiveLimits,
  SearchSettings,
  TemporalSettings,
} from './settings';
import {
  readBool,
  readEnum,
  readHostPort,
  readHttpUrl,
  readInt,
  readList,
  readNameServers,
  readOptional,
  readOrigins,
  readSecret,
  readString,
  type Env,
} from './envReaders';
import { parsePayloadKeys } from '../temporal/payloadKeys';
import { checkTimeouts } from './timeouts';

/**
 * The one place that loads the environment into settings. Every setting is validated here (each
 * variable by a reader of ./envReaders.ts, then the rules between them) so a process fails at
 * start with a message naming the variable, never later mid-request.
 */

export * from './settings';
export * from './billingSettings';
export * from './rateLimitSettings';
export { ConfigError };

function readApiKeys(env: Env): Map<string, string> {
  const keys = new Map<string, string>();
  for (const pair of readList(env, 'API_KEYS')) {
    const colon = pair.lastIndexOf(':');
    const key = colon > 0 ? pair.slice(0, colon).trim() : '';
    const org = colon > 0 ? pair.slice(colon + 1).trim() : '';
    if (!key || !org) throw new ConfigError('API_KEYS', 'expected comma-separated key:organization pairs');
    if (key.length < 16) throw new ConfigError('API_KEYS', 'every key must be at least 16 characters long');
    keys.set(key, org);
  }
  return keys;
}

function readTemporal(env: Env): TemporalSettings {
  const settings: TemporalSettings = {
    address: readHostPort(env, 'TEMPORAL_ADDRESS', 'localhost:7233'),
    namespace: readString(env, 'TEMPORAL_NAMESPACE', 'default'),
    apiKey: readOptional(env, 'TEMPORAL_API_KEY'),
    tlsCertPath: readOptional(env, 'TEMPORAL_TLS_CERT'),
    tlsKeyPath: readOptional(env, 'TEMPORAL_TLS_KEY'),
    tlsCaPath: readOptional(env, 'TEMPORAL_TLS_CA'),
    tlsServerName: readOptional(env, 'TEMPORAL_TLS_SERVER_NAME'),
    tls: false,
  };
  if (Boolean(settings.tlsCertPath) !== Boolean(settings.tlsKeyPath)) {
    throw new ConfigError(
      settings.tlsCertPath ? 'TEMPORAL_TLS_KEY' : 'TEMPORAL_TLS_CERT',
      'client certificate and key must be set together',
    );
  }
  // A hosted Temporal with an API key or mTLS always speaks TLS; plain TLS can be asked for alone.
  settings.tls = readBool(env, 'TEMPORAL_TLS', Boolean(settings.apiKey || settings.tlsCertPath));
  return settings;
}

export function loadConfig(env: Env = process.env): Config {
  const queuePrefix = readString(env, 'TASK_QUEUE_PREFIX', 'webloom');
  const dataDir = path.resolve(readString(env, 'DATA_DIR', path.join(process.cwd(), 'data')));
  const temporalUiPort = readInt(env, 'TEMPORAL_UI_PORT', 8233, 1, 65535);
  const config: Config = {
    host: readString(env, 'HOST', '127.0.0.1'),
    port: readInt(env, 'PORT', 8080, 0, 65535),
    bodyLimitBytes: readInt(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    receive: readReceiveLimits(env),
    codec: readCodec(env),
    cors: {
      apiOrigins: readOrigins(env, 'API_CORS_ORIGINS', []),
      // The embedded UI is reached as localhost or 127.0.0.1, and a browser sends whichever was typed.
      codecOrigins: readOrigins(env, 'CODEC_CORS_ORIGINS', [
        `http://localhost:${temporalUiPort}`,
        `http://127.0.0.1:${temporalUiPort}`,
      ]),
    },
    logLevel: readEnum(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    logFormat: readEnum(env, 'LOG_FORMAT', LOG_FORMATS, 'auto'),
    metrics: {
      token: readSecret(env, 'METRICS_TOKEN'),
      workerPort: readInt(env, 'WORKER_METRICS_PORT', 9464, 0, 65535),
    },
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 3600_000),
    apiKeys: readApiKeys(env),
    billing: readBilling(env),
    rateLimits: readRateLimits(env),
    temporal: readTemporal(env),
    taskQueues: {
      workflows: `${queuePrefix}-workflows`,
      fetch: `${queuePrefix}-fetch`,
      browser: `${queuePrefix}-browser`,
      model: `${queuePrefix}-model`,
      search: `${queuePrefix}-search`,
    },
    allowInternalHosts: readList(env, 'ALLOW_INTERNAL_HOSTS'),
    dnsServers: readNameServers(env, 'DNS_SERVERS'),
    fetch: {
      timeoutMs: readInt(env, 'FETCH_TIMEOUT_MS', 10_000, 100, 300_000),
      minEffortTimeoutMs: readInt(env, 'FETCH_MIN_EFFORT_TIMEOUT_MS', 5_000, 100, 300_000),
      maxBytes: readInt(env, 'FETCH_MAX_BYTES', 10 * 1024 * 1024, 1024, 512 * 1024 * 1024),
      maxRedirects: readInt(env, 'FETCH_MAX_REDIRECTS', 10, 0, 50),
      userAgent: readString(
        env,
        'FETCH_USER_AGENT',
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
      ),
    },
    browser: {
      executablePath: readString(env, 'CHROMIUM_PATH', '/usr/bin/chromium'),
      concurrency: readInt(env, 'BROWSER_CONCURRENCY', 2, 1, 64),
      sessions: readInt(env, 'BROWSER_SESSIONS', 4, 1, 64),
      renderTimeoutMs: readInt(env, 'RENDER_TIMEOUT_MS', 30_000, 1000, 300_000),
      rendererMaxMb: readInt(env, 'BROWSER_RENDERER_MAX_MB', 512, 128, 16_384),
    },
    geo: readGeo(env),
    model: {
      baseUrl: readOptional(env, 'OPENAI_BASE_URL'),
      apiKey: readOptional(env, 'OPENAI_API_KEY'),
      model: readOptional(env, 'OPENAI_MODEL'),
      taskModels: Object.fromEntries(MODEL_TASKS.map((task) => [task, readOptional(env, taskModelVariable(task))])),
      timeoutMs: readInt(env, 'MODEL_TIMEOUT_MS', 120_000, 1000, 900_000),
      contentTokens: readInt(env, 'MODEL_CONTENT_TOKENS', 24_000, 500, 2_000_000),
      repairAttempts: readInt(env, 'MODEL_REPAIR_ATTEMPTS', 2, 0, 10),
      maxChunks: readInt(env, 'MODEL_MAX_CHUNKS', 8, 1, 100),
    },
    markdownMaxBytes: readInt(env, 'MARKDOWN_MAX_BYTES', 1024 * 1024, 16 * 1024, 1536 * 1024),
    convert: {
      // Two at least, so one slow page never holds every thread; past eight, memory (each may
      // take CONVERT_MAX_HEAP_MB) matters more than cores.
      threads: readInt(env, 'CONVERT_THREADS', Math.min(8, Math.max(2, os.availableParallelism())), 1, 256),
      timeoutMs: readInt(env, 'CONVERT_TIMEOUT_MS', 20_000, 1000, 300_000),
      maxHeapMb: readInt(env, 'CONVERT_MAX_HEAP_MB', 1024, 128, 16_384),
    },
    cache: {
      ttlMs: readInt(env, 'CACHE_TTL_SECONDS', 3600, 0, 30 * 24 * 3600) * 1000,
      scope: readEnum(env, 'CACHE_SCOPE', CACHE_SCOPES, 'organization'),
      dir: path.resolve(readString(env, 'CACHE_DIR', path.join(dataDir, 'cache'))),
      redisUrl: readRedisUrl(env),
    },
    stream: {
      heartbeatMs: readInt(env, 'STREAM_HEARTBEAT_MS', 15_000, 100, 300_000),
      disconnectGraceMs: readInt(env, 'STREAM_DISCONNECT_GRACE_MS', 60_000, 1000, 24 * 3600_000),
    },
    research: {
      search: readSearch(env),
      pageConcurrency: readInt(env, 'RESEARCH_PAGE_CONCURRENCY', 6, 1, 64),
      pageTokens: readInt(env, 'RESEARCH_PAGE_TOKENS', 6000, 500, 100_000),
    },
    automate: {
      inputTimeoutMs: readInt(env, 'AUTOMATE_INPUT_TIMEOUT_MS', 120_000, 1000, 30 * 60_000),
      screenshots: readBool(env, 'AUTOMATE_SCREENSHOTS', true),
    },
    dataDir,
    workers: {
      workflowConcurrency: readInt(env, 'WORKFLOW_TASK_CONCURRENCY', 8, 1, 10_000),
      workflowStackTraces: readBool(env, 'WORKFLOW_STACK_TRACES', false),
      fetchConcurrency: readInt(env, 'FETCH_CONCURRENCY', 32, 1, 10_000),
      modelConcurrency: readInt(env, 'MODEL_CONCURRENCY', 16, 1, 10_000),
      pageWorkerNice: readInt(env, 'PAGE_WORKER_NICE', 5, 0, 19),
    },
    embedded: {
      temporalPort: readInt(env, 'TEMPORAL_PORT', 7233, 1, 65535),
      temporalUiPort,
      temporalCliPath: readOptional(env, 'TEMPORAL_CLI_PATH'),
      postgresBinDir: readOptional(env, 'POSTGRES_BIN_DIR'),
    },
    temporalUiUrl: readHttpUrl(env, 'TEMPORAL_UI_URL'),
  };
  checkTimeouts(config);
  return config;
}

function readProxyUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value.replace('{country}', 'us'));
  } catch {
    throw new ConfigError(name, `not a URL: "${value}"`);
  }
  if (!['http:', 'https:', 'socks:', 'socks5:'].includes(url.protocol)) {
    throw new ConfigError(name, `proxy URLs must be http, https or socks5, got ${url.protocol}`);
  }
  return value;
}

function readGeo(env: Env): GeoSettings {
  const proxies = new Map<string, string>();
  for (const pair of readList(env, 'GEO_PROXIES')) {
    const match = /^([A-Za-z]{2})=(.+)$/.exec(pair);
    if (!match) throw new ConfigError('GEO_PROXIES', `expected comma-separated CC=proxy-url pairs, got "${pair}"`);
    proxies.set(match[1]!.toUpperCase(), readProxyUrl('GEO_PROXIES', match[2]!));
  }
  const template = readOptional(env, 'GEO_PROXY_TEMPLATE');
  if (template && !template.includes('{country}'))
    throw new ConfigError('GEO_PROXY_TEMPLATE', 'must contain {country}');
  return { proxies, template: template ? readProxyUrl('GEO_PROXY_TEMPLATE', template) : undefined };
}

/**
 * The search engine: SEARCH_ENGINE when set, else the one whose setting is present (SearXNG
 * first). An engine named without its setting stops the process, as any bad setting does.
 */
function readSearch(env: Env): SearchSettings {
  const searxngUrl = readHttpUrl(env, 'SEARXNG_URL');
  const braveApiKey = readOptional(env, 'BRAVE_SEARCH_API_KEY');
  const named = env.SEARCH_ENGINE?.trim() ? readEnum(env, 'SEARCH_ENGINE', SEARCH_ENGINES, 'searxng') : undefined;
  const engine = named ?? (searxngUrl ? 'searxng' : braveApiKey ? 'brave' : undefined);
  if (engine === 'searxng' && !searxngUrl)
    throw new ConfigError('SEARXNG_URL', 'SEARCH_ENGINE is searxng: set the base URL of its JSON API');
  if (engine === 'brave' && !braveApiKey)
    throw new ConfigError('BRAVE_SEARCH_API_KEY', 'SEARCH_ENGINE is brave: set its API key');
  return {
    engine,
    searxngUrl,
    braveApiKey,
    braveUrl: readHttpUrl(env, 'BRAVE_SEARCH_URL') ?? 'https://api.search.brave.com/res/v1/web/search',
    timeoutMs: readInt(env, 'SEARCH_TIMEOUT_MS', 10_000, 500, 120_000),
  };
}

function readReceiveLimits(env: Env): ReceiveLimits {
  const limits = {
    headersTimeoutMs: readInt(env, 'HEADERS_TIMEOUT_MS', 10_000, 500, 600_000),
    requestTimeoutMs: readInt(env, 'REQUEST_RECEIVE_TIMEOUT_MS', 30_000, 500, 600_000),
  };
  // Node refuses a headers limit longer than the whole request's.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `must not exceed REQUEST_RECEIVE_TIMEOUT_MS (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}

function readCodec(env: Env): CodecSettings {
  const settings = {
    keys: readPayloadKeys(env),
    secret: readSecret(env, 'CODEC_SECRET'),
    maxPayloadBytes: readInt(env, 'CODEC_MAX_PAYLOAD_BYTES', 8 * 1024 * 1024, 64 * 1024, 512 * 1024 * 1024),
    maxRequestBytes: readInt(env, 'CODEC_MAX_REQUEST_BYTES', 32 * 1024 * 1024, 64 * 1024, 512 * 1024 * 1024),
  };
  if (settings.maxRequestBytes < settings.maxPayloadBytes) {
    throw new ConfigError(
      'CODEC_MAX_REQUEST_BYTES',
      `must be at least CODEC_MAX_PAYLOAD_BYTES (${settings.maxPayloadBytes})`,
    );
  }
  return settings;
}

function readPayloadKeys(env: Env): PayloadKeys | undefined {
  return env[PAYLOAD_KEYS_VARIABLE]?.trim()
    ? parsePayloadKeys(env[PAYLOAD_KEYS_VARIABLE], PAYLOAD_KEYS_VARIABLE)
    : undefined;
}

function readRedisUrl(env: Env): string | undefined {
  const value = readOptional(env, 'REDIS_URL');
  if (value && !/^rediss?:\/\//.test(value))
    throw new ConfigError('REDIS_URL', `expected redis:// or rediss://, got "${value}"`);
  return value;
}
