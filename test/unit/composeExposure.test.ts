import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
}

/**
 * The compose file as Docker reads it. No Docker daemon runs in CI, so this checks the file
 * itself: what it publishes on the host, and how the Web UI reaches the codec.
 */
async function services(): Promise<Record<string, ComposeService>> {
  const file = await readFile(path.resolve(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
  return (parse(file) as { services: Record<string, ComposeService> }).services;
}

describe('docker compose exposure', () => {
  it('publishes Temporal gRPC and the Web UI on loopback only', async () => {
    const { temporal } = await services();
    const published = temporal!.ports ?? [];
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('points the Web UI at the codec behind its secret, which the API is given', async () => {
    const { temporal, api } = await services();
    const endpoint = temporal!.command?.find((arg) => arg.startsWith('--ui-codec-endpoint='));
    expect(endpoint).toMatch(/^--ui-codec-endpoint=http:\/\/localhost:8080\/codec\/\$\{CODEC_SECRET:\?[^}]+\}$/);
    expect(api!.environment?.CODEC_SECRET).toMatch(/^\$\{CODEC_SECRET:\?[^}]+\}$/);
  });
});
