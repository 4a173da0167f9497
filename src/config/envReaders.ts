import { isIP } from 'node:net';
import { ConfigError } from './configError';

/**
 * Readers of one environment variable each: a value that is not what the setting takes throws
 * ConfigError naming the variable, so the process stops at start, never mid-request.
 */

export type Env = Record<string, string | undefined>;

export function readString(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value ? value : fallback;
}

export function readOptional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${env[name]}"`);
}

export function readEnum<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (!values.includes(raw as T))
    throw new ConfigError(name, `expected one of ${values.join(', ')}; got "${env[name]}"`);
  return raw as T;
}

export function readList(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Name servers as Node's resolver takes them: `address` or `address:port`, IPv6 in brackets with a port. */
export function readNameServers(env: Env, name: string): string[] {
  return readList(env, name).map((server) => {
    const match = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(server) ?? /^([0-9.]+):(\d{1,5})$/.exec(server);
    const address = match ? match[1]! : server;
    const port = match ? Number(match[2]) : 53;
    if (!isIP(address) || port < 1 || port > 65535)
      throw new ConfigError(
        name,
        `expected IP addresses with optional ports (1.1.1.1, 10.0.0.2:5353, [::1]:53), got "${server}"`,
      );
    return server;
  });
}

export function readHostPort(env: Env, name: string, fallback: string): string {
  const value = readString(env, name, fallback);
  if (!/^[^\s:/]+:\d+$/.test(value) && !/^\[[0-9a-fA-F:]+\]:\d+$/.test(value)) {
    throw new ConfigError(name, `expected host:port, got "${value}"`);
  }
  return value;
}

export function readHttpUrl(env: Env, name: string): string | undefined {
  const value = readOptional(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `not a URL: "${value}"`);
  }
  if (!['http:', 'https:'].includes(url.protocol))
    throw new ConfigError(name, `expected an http or https URL, got "${value}"`);
  return value;
}

export function readSecret(env: Env, name: string): string | undefined {
  const value = readOptional(env, name);
  // It goes into a URL path, so only characters that need no escaping there.
  if (value !== undefined && !/^[\w.~-]{16,}$/.test(value)) {
    throw new ConfigError(name, 'expected at least 16 characters of A-Z, a-z, 0-9, -, _, . or ~');
  }
  return value;
}

export function readOrigins(env: Env, name: string, fallback: string[]): string[] {
  const origins = readList(env, name);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(
        name,
        `expected comma-separated origins such as https://ui.example.com:8233 (no path), got "${origin}"`,
      );
    }
  }
  return origins.length > 0 ? origins : fallback;
}
