import { requireProxyFor } from '../../operations/geo';
import type { GeoTarget } from '../../types';
import type { ApiDeps } from '../deps';

/**
 * The checks every page operation makes before starting work: the URL is valid and not internal
 * (422), and a requested country has a proxy (400), so nothing is ever fetched from the wrong place.
 */
export async function checkPageTarget(deps: ApiDeps, request: PageTarget): Promise<void> {
  await deps.policy.checkUrl(pageTargetUrl(deps, request));
}

/** The checks of checkPageTarget that look nothing up (no DNS): the URL they parsed, for the rest. */
export function pageTargetUrl(deps: ApiDeps, request: PageTarget): URL {
  const country = request.geo_target?.country;
  if (country) requireProxyFor(deps.config.geo, country);
  return deps.policy.parseUrl(request.url);
}

interface PageTarget {
  url: string;
  geo_target?: GeoTarget;
}
