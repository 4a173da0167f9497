import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Failure messages and stack traces can quote a page, a model's answer or a value typed from the
 * caller's data; Temporal keeps them outside payloads, so outside the codec, unless they are
 * encoded. Encoded, they travel as a payload the codec encrypts. Loaded by path, as the workflow
 * sandbox needs it too; it decodes failures recorded before as well.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
