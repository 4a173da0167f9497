import type { GeoSettings } from '../config/settings';
import { ServiceError } from '../errors';

/** The proxy for a country, or undefined when none is configured for it. */
export function proxyForCountry(geo: GeoSettings, country: string): string | undefined {
  const upper = country.toUpperCase();
  return geo.proxies.get(upper) ?? geo.template?.replaceAll('{country}', upper.toLowerCase());
}

export const geoUnavailableMessage = (country: string) =>
  `geo_target.country ${country} is not available: no proxy is configured for it`;

/**
 * The proxy a request for `country` must go through; a country without one is refused (400), never
 * fetched directly.
 */
export function requireProxyFor(geo: GeoSettings, country: string): string {
  const proxy = proxyForCountry(geo, country);
  if (!proxy) throw new ServiceError('geo_unavailable', undefined, geoUnavailableMessage(country));
  return proxy;
}
