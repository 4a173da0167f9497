import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import type { TemporalSettings } from '../config';

/**
 * Connection options shared by the API's client and the workers, so a local dev server, a
 * self-run cluster with mTLS and a hosted Temporal with an API key are configured alike.
 */
export function connectionOptions(settings: TemporalSettings): { address: string; tls?: TLSConfig; apiKey?: string } {
  const tls: TLSConfig | undefined = settings.tls
    ? {
        serverNameOverride: settings.tlsServerName,
        serverRootCACertificate: settings.tlsCaPath ? readFileSync(settings.tlsCaPath) : undefined,
        clientCertPair:
          settings.tlsCertPath && settings.tlsKeyPath
            ? { crt: readFileSync(settings.tlsCertPath), key: readFileSync(settings.tlsKeyPath) }
            : undefined,
      }
    : undefined;
  return { address: settings.address, tls, apiKey: settings.apiKey };
}
