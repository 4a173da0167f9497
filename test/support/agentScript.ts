import type { Decision } from '../../src/prompts/automate.v1';
import type { FormatReply } from './modelStandIn';

/**
 * Automate decisions as the model stand-in answers them (schema `automate_action`), for the
 * tests, the history recorder and the benchmark: only the fields an action uses are given, the
 * rest are null as strict structured output has them. A ref may be `{{ref:<role> "<name>"}}`,
 * which the stand-in resolves against the snapshot the request carries.
 */
export type AgentStep = Partial<Omit<Decision, 'action'>> & { action?: string };

/** What strict structured output gives for the fields an action does not use. */
const UNUSED_FIELDS = {
  ref: null,
  value: null,
  dataPath: null,
  key: null,
  url: null,
  seconds: null,
  direction: null,
  text: null,
} as const;

/** The answer's content: one decision, `done` unless the step says otherwise. */
export function agentDecision(step: AgentStep, reasoning = 'scripted'): string {
  return JSON.stringify({ reasoning, action: 'done', ...UNUSED_FIELDS, ...step });
}

/** A decision as the workflow receives it, for tests that hand one to its code directly. */
export function decision(partial: Partial<Decision>): Decision {
  return { reasoning: 'because', action: 'scroll', ...UNUSED_FIELDS, ...partial };
}

/** One decision, answered when the request's messages contain `when` (the current page). */
export function decide(when: string, step: AgentStep): FormatReply {
  return { when, content: agentDecision(step, `on a page with ${when}`) };
}
