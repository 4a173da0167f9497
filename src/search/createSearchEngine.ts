import type { SearchSettings } from '../config';
import { braveSearch } from './braveSearch';
import type { SearchEngine } from './searchEngine';
import { searxngSearch } from './searxng';

/** The configured engine; undefined when none is (Research then answers 503). */
export function createSearchEngine(settings: SearchSettings): SearchEngine | undefined {
  switch (settings.engine) {
    case 'searxng':
      return searxngSearch(settings.searxngUrl!, settings.timeoutMs);
    case 'brave':
      return braveSearch(settings.braveUrl, settings.braveApiKey!, settings.timeoutMs);
    default:
      return undefined;
  }
}
