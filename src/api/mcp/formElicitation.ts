import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import type { FormDataRequest, RequestedField } from '../../events/automate';
import type { FieldValue } from '../../operations/automate';

/**
 * An interactive automate run's form request as an MCP elicitation, and the person's answer as the
 * field values POST .../input takes.
 */

/** Page text shown to the person in a form request: a page can make it as long as it likes. */
const MAX_SHOWN = 500;

const clip = (text: string): string => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

/**
 * A form field as an elicitation asks for it; values go back to the page as text. A date field
 * stays free text: it is a date, month, week, time or datetime-local input, or a text field for a
 * birthday in the page's own format, and JSON Schema's `date` would refuse all but the first.
 */
function fieldSchema(field: RequestedField): ElicitRequestFormParams['requestedSchema']['properties'][string] {
  const shown = {
    title: clip(field.label || field.ref),
    ...(field.description ? { description: clip(field.description) } : {}),
  };
  const options = (field.options ?? []).map(clip);
  switch (field.fieldType) {
    case 'checkbox':
      return { type: 'boolean', ...shown };
    case 'email':
      return { type: 'string', format: 'email', ...shown };
    case 'select':
    case 'radio':
      if (options.length > 0) return { type: 'string', enum: options, ...shown };
      return { type: 'string', ...shown };
    default:
      return { type: 'string', ...shown };
  }
}

/** The form request as an elicitation: what the page asks for, where, and what was wrong last time. */
export function elicitation(
  request: FormDataRequest & { fieldErrors?: Record<string, string> },
): ElicitRequestFormParams {
  const errors = Object.entries(request.fieldErrors ?? {}).map(([ref, error]) => {
    const field = request.fields.find((candidate) => candidate.ref === ref);
    return `- ${clip(field?.label || ref)}: ${clip(error)}`;
  });
  const message = [
    clip(request.formDescription || 'The browser task asks for these form fields.'),
    `Page: ${clip(request.pageTitle)} (${clip(request.pageUrl)})`,
    ...(errors.length > 0 ? ['Please correct:', ...errors] : []),
  ].join('\n');
  return {
    mode: 'form',
    message,
    requestedSchema: {
      type: 'object',
      properties: Object.fromEntries(request.fields.map((field) => [field.ref, fieldSchema(field)])),
      required: request.fields.filter((field) => field.required).map((field) => field.ref),
    },
  };
}

/** What the form's fields were answered with, as the text the page takes. */
export function fieldValues(fields: RequestedField[], content: Record<string, unknown>): FieldValue[] {
  return fields
    .filter((field) => content[field.ref] !== undefined)
    .map((field) => {
      const value = content[field.ref];
      return { ref: field.ref, value: Array.isArray(value) ? value.join(',') : String(value) };
    });
}
