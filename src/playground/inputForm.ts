import { el, externalLink, safeHref } from './render';

/** A field the agent asks for, as `interactive:form_data:request` carries it (src/events/automate.ts). */
export interface RequestedField {
  ref: string;
  label: string;
  fieldType: string;
  required: boolean;
  description?: string;
  options?: string[];
  currentValue?: string;
}

export interface FormRequest {
  requestId: string;
  fields: RequestedField[];
  formDescription?: string;
  pageTitle?: string;
  pageUrl?: string;
  /** On `interactive:form_data:error`: what was wrong with the last answer, by ref. */
  fieldErrors?: Record<string, string>;
}

export type InputAnswer = { fields: { ref: string; value: string }[] } | { cancelled: true };

const INPUT_TYPES: Record<string, string> = {
  text: 'text',
  email: 'email',
  phone: 'tel',
  date: 'date',
  number: 'number',
  password: 'password',
};

/** Reads a request's fields from an event's payload; undefined when it is not one. */
export function formRequestOf(data: Record<string, unknown>): FormRequest | undefined {
  if (typeof data.requestId !== 'string' || !Array.isArray(data.fields)) return undefined;
  const fields = (data.fields as unknown[]).filter(
    (field): field is RequestedField =>
      typeof field === 'object' &&
      field !== null &&
      typeof (field as RequestedField).ref === 'string' &&
      typeof (field as RequestedField).label === 'string',
  );
  return { ...(data as unknown as FormRequest), fields };
}

/**
 * The form a person answers the agent's request with: one labelled control per requested field,
 * of the field's type, its description and any error from the last answer tied to it.
 */
export function inputForm(request: FormRequest, send: (answer: InputAnswer) => Promise<string>): HTMLFormElement {
  const form = el('form', { className: 'input-form' });
  form.noValidate = false;
  const heading = el('h3', { text: 'The agent asks for input' });
  heading.tabIndex = -1;
  form.append(heading);
  if (request.formDescription) form.append(el('p', { text: request.formDescription }));
  const href = safeHref(request.pageUrl);
  if (request.pageTitle || href) {
    const page = el('p', { className: 'note', text: 'On the page ' });
    page.append(href ? externalLink(href, request.pageTitle || href) : el('span', { text: request.pageTitle }));
    form.append(page);
  }
  const readers: (() => { ref: string; value: string })[] = [];
  request.fields.forEach((field, index) => {
    const id = `input-${request.requestId.replace(/[^A-Za-z0-9_-]/g, '')}-${index}`;
    const row = el('div', { className: 'field' });
    const describedBy: string[] = [];
    const error = request.fieldErrors?.[field.ref];
    const hint = (suffix: string, text: string, className = 'hint') => {
      const node = el('p', { className, text });
      node.id = `${id}-${suffix}`;
      describedBy.push(node.id);
      return node;
    };
    const notes = [
      ...(field.description ? [hint('hint', field.description)] : []),
      ...(error ? [hint('error', error, 'error')] : []),
    ];
    const options = field.options ?? [];
    if (field.fieldType === 'radio' && options.length > 0) {
      const group = el('fieldset', {}, el('legend', { text: field.label }));
      const radios = options.map((option, n) => {
        const radio = el('input');
        radio.type = 'radio';
        radio.name = id;
        radio.id = `${id}-${n}`;
        radio.value = option;
        radio.required = field.required;
        radio.checked = option === field.currentValue;
        group.append(el('label', { className: 'choice' }, radio, document.createTextNode(` ${option}`)));
        return radio;
      });
      group.append(...notes);
      row.append(group);
      readers.push(() => ({ ref: field.ref, value: radios.find((radio) => radio.checked)?.value ?? '' }));
      form.append(row);
      return;
    }
    let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    if (field.fieldType === 'select' && options.length > 0) {
      control = el('select');
      control.append(el('option', { text: '' }), ...options.map((option) => el('option', { text: option })));
      control.value = field.currentValue ?? '';
    } else if (field.fieldType === 'textarea') {
      control = el('textarea');
      control.value = field.currentValue ?? '';
    } else if (field.fieldType === 'checkbox') {
      control = el('input');
      control.type = 'checkbox';
      control.checked = field.currentValue === 'true';
    } else {
      control = el('input');
      control.type = INPUT_TYPES[field.fieldType] ?? 'text';
      control.value = field.currentValue ?? '';
      control.autocomplete = 'off';
    }
    control.id = id;
    control.required = field.required && !(control instanceof HTMLInputElement && control.type === 'checkbox');
    if (error) control.setAttribute('aria-invalid', 'true');
    if (describedBy.length > 0) control.setAttribute('aria-describedby', describedBy.join(' '));
    const label = el('label', { text: field.label + (field.required ? ' (required)' : '') });
    label.htmlFor = id;
    row.append(label, control, ...notes);
    form.append(row);
    const read = control;
    readers.push(() => ({
      ref: field.ref,
      value: read instanceof HTMLInputElement && read.type === 'checkbox' ? String(read.checked) : read.value,
    }));
  });
  const status = el('p', { className: 'form-status' });
  status.setAttribute('role', 'status');
  const submit = el('button', { text: 'Send to the agent' });
  submit.type = 'submit';
  const decline = el('button', { className: 'secondary', text: 'Decline' });
  decline.type = 'button';
  const answer = async (value: InputAnswer) => {
    submit.disabled = decline.disabled = true;
    const result = await send(value);
    status.textContent = result;
    form.querySelectorAll<HTMLInputElement>('input, select, textarea').forEach((control) => (control.disabled = true));
  };
  form.addEventListener('submit', (submitted) => {
    submitted.preventDefault();
    void answer({ fields: readers.map((read) => read()) });
  });
  decline.addEventListener('click', () => void answer({ cancelled: true }));
  form.append(el('div', { className: 'actions' }, submit, decline), status);
  return form;
}
