import type { Decision } from '../../src/prompts/automate.v1';
import type { FormatReply } from './modelStandIn';

/**
 * Automate decisions as the model stand-in answers them (schema `automate_action`), for the
 * tests, the history recorder and the benchmark: only the fields an action uses are given, the
 * rest are null as strict structured output has them. A ref may be `{{ref:<role> "<name>"}}`,
 * which the stand-in resolves against the snapshot the request carries.
 */
export type AgentStep = Partial<Omit<Decision, 'action'>> & { action?: string };

/** The answer's content: one decision, `done` unless the step says otherwise. */
export function agentDecision(step: AgentStep, reasoning = 'scripted'): string {
  return JSON.stringify({
    reasoning,
    action: 'done',
    ref: null,
    value: null,
    dataPath: null,
    key: null,
    url: null,
    seconds: null,
    direction: null,
    text: null,
    ...step,
  });
}

/** One decision, answered when the request's messages contain `when` (the current page). */
export function decide(when: string, step: AgentStep): FormatReply {
  return { when, content: agentDecision(step, `on a page with ${when}`) };
}
