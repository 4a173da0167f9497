import type { Config } from '../config';
import type { ReadSettings } from '../reading/readPage';

/** How the workers that obtain pages read them: the same bounds in every tier. */
export function readSettings(config: Config): ReadSettings {
  // Only what reading needs: these settings travel to every conversion thread.
  return {
    markdownMaxBytes: config.markdownMaxBytes,
    model: { contentTokens: config.model.contentTokens, maxChunks: config.model.maxChunks },
  };
}
