import { loadConfig } from '../config';
import { runMain } from '../config/runMain';
import { findTemporalCli } from './temporalCli';

/** `npm run temporal:install`: makes sure the pinned Temporal CLI is available and prints its path. */
runMain(async () => {
  console.log(await findTemporalCli(loadConfig().embedded.temporalCliPath, (line) => console.error(line)));
});
