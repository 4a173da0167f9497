import { readComposeFile, requiredVariables, readRepoFile } from '../support/composeFile';

/**
 * What the compose files publish on the host, and how the Web UI reaches the codec. No Docker
 * daemon runs in CI, so this checks the files themselves.
 */

/** The one service that checks who calls it (bearer keys), so the one published beyond loopback. */
const PUBLIC_SERVICES = ['api'];

describe.each(['docker-compose.yml', 'docker-compose.dev.yml'])('%s exposure', (file) => {
  const { services } = readComposeFile(file);

  it('publishes Temporal gRPC and the Web UI on loopback only', () => {
    const published = Object.entries(services)
      .filter(([name]) => !PUBLIC_SERVICES.includes(name))
      .flatMap(([name, service]) => (service.ports ?? []).map((port) => `${name} ${port}`));
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/^\S+ 127\.0\.0\.1:\d+:\d+$/);
    expect(published).toEqual(expect.arrayContaining([expect.stringMatching(/:7233$/)]));
  });

  it('points the Web UI at the codec behind its secret, which the API is given', () => {
    const endpoints = Object.values(services).flatMap((service) => [
      ...(Array.isArray(service.command) ? service.command : [])
        .filter((arg) => arg.startsWith('--ui-codec-endpoint='))
        .map((arg) => arg.slice('--ui-codec-endpoint='.length)),
      ...(service.environment?.TEMPORAL_CODEC_ENDPOINT ? [service.environment.TEMPORAL_CODEC_ENDPOINT] : []),
    ]);
    expect(endpoints).toEqual([expect.stringMatching(/^http:\/\/localhost:8080\/codec\/\$\{CODEC_SECRET:\?[^}]+\}$/)]);
    expect(services.api!.environment?.CODEC_SECRET).toMatch(/^\$\{CODEC_SECRET:\?[^}]+\}$/);
    expect(requiredVariables(readRepoFile(file))).toContain('CODEC_SECRET');
  });
});
