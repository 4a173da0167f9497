import { loadConfig } from '../config';
import { findClusterBinaries } from './clusterBinaries';

/** `npm run cluster:install`: finds or builds the programs of the cluster topology and prints where they are. */
const config = loadConfig();
findClusterBinaries({
  temporalCliPath: config.embedded.temporalCliPath,
  postgresBinDir: config.embedded.postgresBinDir,
  log: (line) => console.error(line),
})
  .then((binaries) => console.log(JSON.stringify(binaries, null, 2)))
  .catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
