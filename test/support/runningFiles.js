const { mkdirSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { setInterval, clearInterval } = require('node:timers');

/** A file running this long is stuck, not slow (or waited that long for the shared stack's turn). */
const STUCK_AFTER_MS = 15 * 60_000;
const CHECK_MS = 60_000;

/**
 * A reporter that keeps the test files running now, with when each started, in
 * data/test-logs/running-files.txt, and says on stderr which file has run past 15 minutes. Jest
 * prints a file only once it ends, so a run cut off at CI's limit would otherwise not say which
 * files it was in (.ci/run prints this list then). Plain JavaScript: Jest loads reporters
 * without transforming them.
 */
class RunningFilesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.listFile = path.join(globalConfig.rootDir, 'data', 'test-logs', 'running-files.txt');
    this.running = new Map();
    this.named = new Set();
    this.timer = undefined;
  }

  onRunStart() {
    mkdirSync(path.dirname(this.listFile), { recursive: true });
    this.write();
    this.timer = setInterval(() => this.nameStuck(), CHECK_MS);
    this.timer.unref();
  }

  onTestFileStart(test) {
    this.running.set(test.path, Date.now());
    this.write();
  }

  onTestFileResult(test) {
    this.running.delete(test.path);
    this.write();
  }

  onRunComplete() {
    clearInterval(this.timer);
    rmSync(this.listFile, { force: true });
  }

  nameStuck() {
    for (const [file, startedAt] of this.running)
      if (Date.now() - startedAt > STUCK_AFTER_MS && !this.named.has(file)) {
        this.named.add(file);
        process.stderr.write(
          `still running after ${STUCK_AFTER_MS / 60_000} min: ${path.relative(this.rootDir, file)}\n`,
        );
      }
  }

  write() {
    const lines = [...this.running].map(
      ([file, startedAt]) => `${new Date(startedAt).toISOString()} ${path.relative(this.rootDir, file)}\n`,
    );
    writeFileSync(this.listFile, lines.join(''));
  }
}

module.exports = RunningFilesReporter;
