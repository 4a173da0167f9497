import type { Config } from '../config';
import type { ReadSettings } from '../activities/readPage';

/** How the workers that obtain pages read them: the same bounds in every tier. */
export function readSettings(config: Config): ReadSettings {
  return { markdownMaxBytes: config.markdownMaxBytes, model: config.model };
}
