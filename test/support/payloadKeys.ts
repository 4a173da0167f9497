import { loadConfig, PAYLOAD_KEYS_VARIABLE } from '../../src/config';
import { requirePayloadKeys } from '../../src/temporal/payloadKeys';
import { serviceDataConverter } from '../../src/temporal/payloadCodec';

/**
 * The payload key of every test stack and workflow test, fixed so that histories recorded by
 * `npm run histories:record` replay in test/workflow/replay.test.ts.
 */
export const TEST_PAYLOAD_KEYS = `test1:${Buffer.alloc(32, 'webloom-test-key').toString('base64')}`;

export const testPayloadKeys = requirePayloadKeys(loadConfig({ [PAYLOAD_KEYS_VARIABLE]: TEST_PAYLOAD_KEYS }).codec);

/** The data converter the test stack's API and workers use. */
export const testDataConverter = serviceDataConverter(testPayloadKeys);
