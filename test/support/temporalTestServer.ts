import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensurePrerequisites, type Prerequisite } from './prerequisites';

const run = promisify(execFile);

/**
 * Temporal's time-skipping test server, for the workflow tier. Left to itself the SDK downloads a
 * native build of it from Temporal's release site on first use; the same server is published on
 * Maven Central (io.temporal:temporal-test-server), which every machine of ours reaches. Maven
 * resolves it once into a per-user cache beside the Temporal CLI's, and it runs on the
 * machine's Java. TEMPORAL_TEST_SERVER_PATH names another build (a native one, say) instead.
 */
export const TEST_SERVER_VERSION = '1.38.0';

const JAVA: Prerequisite = {
  name: 'Java',
  executable: 'java',
  debianPackage: 'default-jre-headless',
  homebrewPackage: 'openjdk',
};
const MAVEN: Prerequisite = { name: 'Maven', executable: 'mvn', debianPackage: 'maven', homebrewPackage: 'maven' };

export function testServerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  return path.join(base, 'webloom', 'temporal-test-server', `v${TEST_SERVER_VERSION}`);
}

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>webloom.test</groupId>
  <artifactId>temporal-test-server</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>${TEST_SERVER_VERSION}</version>
    </dependency>
    <!-- Without a binding, SLF4J prints three warning lines at every start. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-nop</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
`;

/**
 * The SDK starts the executable with the port as its first argument and gives it five seconds
 * to answer. C1 only and the serial collector start the JVM in about a second, even on a
 * loaded machine; the tests are too short for the optimising compiler to pay off.
 */
const LAUNCHER = `#!/bin/sh
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$(dirname "$0")/lib/*" io.temporal.testserver.TestServer "$@"
`;

async function install(dir: string, log: (line: string) => void): Promise<void> {
  log(`installing Temporal's test server v${TEST_SERVER_VERSION} from Maven Central into ${dir} (once per machine)`);
  await mkdir(path.dirname(dir), { recursive: true });
  // Built beside its final place and renamed into it, so an interrupted install leaves nothing half done.
  const work = await mkdtemp(`${dir}.partial-`);
  try {
    await writeFile(path.join(work, 'pom.xml'), POM);
    await run(
      'mvn',
      [
        '-B',
        '-q',
        '-f',
        path.join(work, 'pom.xml'),
        'dependency:copy-dependencies',
        '-DincludeScope=runtime',
        `-DoutputDirectory=${path.join(work, 'lib')}`,
      ],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    await rm(path.join(work, 'pom.xml'));
    await writeFile(path.join(work, 'temporal-test-server'), LAUNCHER);
    await chmod(path.join(work, 'temporal-test-server'), 0o755);
    if (!existsSync(dir)) await rename(work, dir);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The test server executable to hand the SDK (`existing-path`), installed on first use. */
export async function findTestServer(log: (line: string) => void): Promise<string> {
  const explicit = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`TEMPORAL_TEST_SERVER_PATH: no file at ${explicit}`);
    return explicit;
  }
  const dir = testServerCacheDir();
  const launcher = path.join(dir, 'temporal-test-server');
  const installed = existsSync(launcher);
  ensurePrerequisites('workflow', installed ? [JAVA] : [JAVA, MAVEN]);
  if (!installed) await install(dir, log);
  return launcher;
}
