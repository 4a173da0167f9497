import { loadConfig } from '../config';
import { runMain } from '../config/runMain';
import { findClusterBinaries } from './clusterBinaries';

/** `npm run cluster:install`: finds or builds the programs of the cluster topology and prints where they are. */
runMain(async () => {
  const config = loadConfig();
  const binaries = await findClusterBinaries({
    temporalCliPath: config.embedded.temporalCliPath,
    postgresBinDir: config.embedded.postgresBinDir,
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(binaries, null, 2));
});
