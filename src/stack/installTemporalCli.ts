import { loadConfig } from '../config';
import { findTemporalCli } from './temporalCli';

/** `npm run temporal:install`: makes sure the pinned Temporal CLI is available and prints its path. */
findTemporalCli(loadConfig().embedded.temporalCliPath, (line) => console.error(line))
  .then((cli) => console.log(cli))
  .catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
