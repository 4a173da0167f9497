import type { FirewallRules } from '../operations/automate';
import type { InputRequests } from './inputRequests';
import type { HeldSession, SessionReport } from './taskSession';

/** Answers to one input request that broke the fields' rules, before the agent goes on without. */
const INPUT_ROUNDS = 3;

/** What a form request tells its task: besides the session's reports, the fields the caller filled. */
export interface FormReport extends SessionReport {
  succeeded(action: string, outcome: string): void;
}

/** Interactive mode's `request_input` step: the caller fills a form's fields, the model never sees them. */
export class FormInput {
  /** `secrets.hidden` and `secrets.guarded` take what the caller types, for every session from then on. */
  constructor(
    private readonly run: FormReport,
    private readonly requests: InputRequests,
    private readonly secrets: { hidden: string[]; guarded: string[] },
    private readonly firewall: FirewallRules,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Asks the caller for the fields of a form (interactive mode): waits for the answer until the
   * request expires, asks again while answers break the fields' rules, and has the session type
   * the values without the model ever seeing them.
   */
  async ask(session: HeldSession, ref: string, description: string): Promise<void> {
    const { fields, formDescription } = await session.steps.describeForm({ sessionId: session.id, ref });
    if (fields.length === 0) {
      this.run.failedStep('request_input', `there is no form field around ${ref} to ask for`);
      return;
    }
    let fieldErrors: Record<string, string> | undefined;
    for (let round = 0; round < INPUT_ROUNDS; round++) {
      const requestId = this.requests.open();
      const request = {
        requestId,
        fields,
        formDescription: formDescription || description,
        pageTitle: session.title,
        pageUrl: session.url,
      };
      if (fieldErrors) this.run.emit('interactive:form_data:error', this.run.framed({ ...request, fieldErrors }));
      else this.run.emit('interactive:form_data:request', this.run.framed(request));
      const answer = await this.requests.answer(this.timeoutMs);
      if (!answer) {
        this.run.emit('agent:status', this.run.framed({ message: 'The input request expired; going on without it' }));
        this.run.note('request_input', 'the user did not answer in time: go on without these fields');
        return;
      }
      if (answer.cancelled) {
        this.run.emit('agent:status', this.run.framed({ message: 'The user declined the input request' }));
        this.run.note('request_input', 'the user declined: go on without these fields');
        return;
      }
      const values = answer.fields.filter((entry) => entry.value !== '');
      // The session guards and hides what the caller typed as it types it; a session opened
      // after this one is told with the rest.
      this.secrets.guarded.push(...values.map((entry) => entry.value).filter((value) => value.length >= 4));
      this.secrets.hidden.push(...values.map((entry) => entry.value));
      // The session checks each value against its field's rules before typing it.
      fieldErrors = (await session.steps.fillFields({ sessionId: session.id, values, firewall: this.firewall }))
        .fieldErrors;
      if (Object.keys(fieldErrors).length === 0) {
        const typed = new Set(values.map((entry) => entry.ref));
        const labels = fields.filter((field) => typed.has(field.ref)).map((field) => field.label || field.ref);
        this.run.succeeded('request_input', `the user filled: ${labels.join(', ')} (values hidden)`);
        return;
      }
    }
    this.run.note('request_input', 'the user gave no valid values: go on without these fields');
  }
}
