import { parseWorkflowId, workflowIdOf } from '../../src/events/streams';

const ULID = '01JC3T9ZQ6M5V0R2X8E4K7B1YD';

describe('workflow ids', () => {
  it('reads back the parts of an id, an organization with a slash too', () => {
    expect(parseWorkflowId(workflowIdOf('acme', 'extract-json', ULID))).toEqual({
      organization: 'acme',
      operation: 'extract-json',
      ulid: ULID,
    });
    expect(parseWorkflowId(workflowIdOf('acme/eu', 'research', ULID))).toMatchObject({ organization: 'acme/eu' });
  });

  it('refuses ids of any other form', () => {
    for (const id of [ULID, `research/${ULID}`, `/research/${ULID}`, `acme//${ULID}`, 'acme/research/not-a-ulid'])
      expect(parseWorkflowId(id)).toBeUndefined();
  });
});
