const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * The order Jest hands files to its two workers. The e2e files on the shared stack take turns
 * (test/support/sharedStackEnvironment.ts), so two of them in a row would leave one worker
 * waiting; each is followed by a file that runs beside it: an e2e file with a stack of its own
 * first (the longest of those), then the workflow and unit files. Within each kind, Jest's own
 * order: last run's failures first, then the longest (by last run's time, else by file size).
 * Plain JavaScript: Jest loads a sequencer without transforming it.
 */
class TurnTakingSequencer extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const shared = ordered.filter(takesTurn);
    const rank = (test) => ({ e2e: 0, workflow: 1 })[test.context.config.displayName?.name] ?? 2;
    const beside = ordered.filter((test) => !takesTurn(test)).sort((a, b) => rank(a) - rank(b));
    const interleaved = [];
    for (let i = 0; i < Math.max(shared.length, beside.length); i++) {
      if (shared[i]) interleaved.push(shared[i]);
      if (beside[i]) interleaved.push(beside[i]);
    }
    return interleaved;
  }
}

function takesTurn(test) {
  const { displayName, testEnvironmentOptions } = test.context.config;
  const own = testEnvironmentOptions.ownStackFiles ?? [];
  return displayName?.name === 'e2e' && !own.includes(path.basename(test.path));
}

module.exports = TurnTakingSequencer;
