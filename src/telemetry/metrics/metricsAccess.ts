import { bearerToken, KeyRing } from '../../api/keyRing';

/**
 * Who may read /metrics: anyone when no METRICS_TOKEN is set (Prometheus scrapes rarely carry a
 * key, and the numbers name no organization), else only a caller presenting that token.
 */
export function metricsAccess(token: string | undefined): (authorization: string | undefined) => boolean {
  if (!token) return () => true;
  const tokens = new KeyRing<true>([[token, true]]);
  return (authorization) => tokens.find(bearerToken(authorization ?? '')) === true;
}
