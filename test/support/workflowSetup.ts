import { findTestServer } from './temporalTestServer';

/** The workflow tier needs only Temporal's test server; each test file starts its own. */
export default async function globalSetup(): Promise<void> {
  process.env.TEST_TEMPORAL_TEST_SERVER = await findTestServer((line) => console.log(line));
}
