import { Client, Connection } from '@temporalio/client';
import { testDataConverter } from './payloadKeys';

/**
 * A Temporal client of the test stack (its address, namespace and payload keys, so payloads,
 * memos and failures read decrypted) for as long as `use` runs; its connection is closed after.
 */
export async function withStackClient<T>(use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS });
  try {
    return await use(
      new Client({ connection, namespace: process.env.TEST_TEMPORAL_NAMESPACE, dataConverter: testDataConverter }),
    );
  } finally {
    await connection.close();
  }
}
