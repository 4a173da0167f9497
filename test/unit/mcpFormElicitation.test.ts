import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { FormDataRequest, RequestedField } from '../../src/events/automate';
import { elicitation, fieldValues } from '../../src/api/mcp/formElicitation';

/**
 * An interactive automate run's form request as the MCP elicitation the person answers: every
 * answer the page would take must pass the schema, which the SDK checks the client's answer against
 * (with this validator) before the server sees it.
 */

const field = (ref: string, fieldType: RequestedField['fieldType'], extra: Partial<RequestedField> = {}) => ({
  ref,
  label: ref,
  fieldType,
  required: false,
  ...extra,
});

function request(fields: RequestedField[], fieldErrors?: Record<string, string>) {
  const asked: FormDataRequest & { fieldErrors?: Record<string, string> } = {
    requestId: '01J0000000000000000000000-0123456789abcdef0123456789abcdef',
    fields,
    formDescription: 'Checkout',
    pageTitle: 'Shop',
    pageUrl: 'http://shop.test/checkout',
    iterationId: 'i1',
    timestamp: 0,
    ...(fieldErrors ? { fieldErrors } : {}),
  };
  return elicitation(asked);
}

const accepts = (fields: RequestedField[], answer: Record<string, unknown>) =>
  new AjvJsonSchemaValidator().getValidator(request(fields).requestedSchema)(answer).valid;

describe('a form request as an elicitation', () => {
  it('takes what each kind of field takes on the page, a date field in any of its input types', () => {
    const fields = [
      field('when', 'date'),
      field('card', 'text', { required: true }),
      field('email', 'email'),
      field('terms', 'checkbox'),
      field('size', 'select', { options: ['S', 'M'] }),
    ];
    // <input type=date>, month, week, time and datetime-local, and a text field autocompleted as a birthday.
    for (const when of ['2026-11-27', '2026-11', '2026-W48', '12:30', '2026-11-27T12:30', '27/11/1990'])
      expect({ when, valid: accepts(fields, { when, card: '4111', terms: true, size: 'M' }) }).toEqual({
        when,
        valid: true,
      });
    expect(accepts(fields, { when: '2026-11', terms: true })).toBe(false);
    expect(accepts(fields, { card: '4111', size: 'XL' })).toBe(false);
    expect(accepts(fields, { card: '4111', email: 'not an address' })).toBe(false);
  });

  it("clips the page's words it shows, and names the fields an answer broke", () => {
    const long = 'x'.repeat(10_000);
    const asked = request([field('code', 'text', { label: long, description: long })], { code: 'Unknown code' });
    const shown = asked.requestedSchema.properties.code!;
    expect(shown.title!.length).toBeLessThanOrEqual(501);
    expect(shown.description!.length).toBeLessThanOrEqual(501);
    expect(asked.message).toContain('Please correct:');
    expect(asked.message).toContain(': Unknown code');
    expect(asked.message.length).toBeLessThan(2_000);
  });

  it('answers each field the person filled as the text the page takes', () => {
    const fields = [field('terms', 'checkbox'), field('card', 'text'), field('left', 'text')];
    expect(fieldValues(fields, { terms: true, card: '4111 1111' })).toEqual([
      { ref: 'terms', value: 'true' },
      { ref: 'card', value: '4111 1111' },
    ]);
  });
});
