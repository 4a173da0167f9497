import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { parse } from 'yaml';

/**
 * The compose files and .env.example as Docker Compose reads them, for tests that check them
 * without a Docker daemon: YAML with merge keys (`<<: *anchor`), and `${VAR...}` interpolation
 * from an environment the test gives.
 */

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface ComposeHealthcheck {
  test: string[] | string;
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
}

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string>;
  env_file?: string | string[];
  ports?: string[];
  volumes?: string[];
  deploy?: { replicas?: number };
  healthcheck?: ComposeHealthcheck;
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  container_name?: string;
  profiles?: string[];
  networks?: string[];
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { internal?: boolean } | null>;
}

export function readRepoFile(relative: string): string {
  return readFileSync(path.join(REPO_ROOT, relative), 'utf8');
}

export function readComposeFile(relative = 'docker-compose.yml'): ComposeFile {
  return parse(readRepoFile(relative), { merge: true }) as ComposeFile;
}

/** The variables of .env.example, each with its example value (most are empty). */
export function envExample(): Record<string, string> {
  return parseEnv(readRepoFile('.env.example')) as Record<string, string>;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g;

/** The variables a compose file refuses to run without (`${NAME:?message}`). */
export function requiredVariables(text: string): string[] {
  return [...new Set([...text.matchAll(VARIABLE)].filter((m) => m[2]?.endsWith('?')).map((m) => m[1]!))].sort();
}

/**
 * A value as Compose interpolates it: `${NAME}`, `${NAME:-default}`, `${NAME:?message}` (which
 * throws when NAME is unset or empty), and `$$` for a literal `$`.
 */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value
    .split('$$')
    .map((part) =>
      part.replace(VARIABLE, (_all, name: string, operator: string | undefined, argument: string | undefined) => {
        const set = vars[name];
        const present = operator?.startsWith(':') ? Boolean(set) : set !== undefined;
        if (operator?.endsWith('?') && !present) throw new Error(`${name}: ${argument}`);
        if (operator?.endsWith('-') && !present) return argument ?? '';
        return set ?? '';
      }),
    )
    .join('$');
}

/** A service's environment, interpolated. */
export function serviceEnvironment(
  service: ComposeService,
  vars: Record<string, string | undefined>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value), vars)]),
  );
}

/** The image reference of a service, split at the tag. */
export function imageTag(service: ComposeService): { name: string; tag: string } {
  const image = service.image ?? '';
  // The tag's colon is the first after the last slash (a registry may carry a port, a tag a variable).
  const colon = image.indexOf(':', image.lastIndexOf('/') + 1);
  return { name: image.slice(0, colon), tag: image.slice(colon + 1) };
}
