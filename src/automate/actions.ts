import type { AgentAction, AutomateRequest, BrowserAction } from '../operations/automate';
import type { Decision } from '../prompts/automate.v1';
import { isCredential } from './credentials';
import { pathOfValue, valueAt } from './dataPaths';

/** The longest `wait` the agent may take: it holds a browser session idle. */
export const MAX_WAIT_SECONDS = 10;

/**
 * The model's decision as an action, or why it is not one (a field it needs is missing, or it
 * asks for input outside interactive mode): that failed step is the model's to correct.
 */
export function actionOf(
  decision: Decision,
  request: Pick<AutomateRequest, 'task' | 'interactive'>,
): AgentAction | string {
  const need = (field: keyof Decision) => `the ${decision.action} action needs a ${field}`;
  const { ref, value, dataPath, key, url, seconds, direction, text } = decision;
  switch (decision.action) {
    case 'click':
      return ref ? { type: 'click', ref } : need('ref');
    case 'fill':
      if (!ref) return need('ref');
      if (dataPath) return { type: 'fill', ref, value: '', dataPath };
      return value !== null ? { type: 'fill', ref, value } : need('value');
    case 'select':
      return ref && value !== null ? { type: 'select', ref, value } : need(ref ? 'value' : 'ref');
    case 'press':
      return key ? { type: 'press', key, ...(ref ? { ref } : {}) } : need('key');
    case 'scroll':
      return { type: 'scroll', direction: direction ?? 'down' };
    case 'navigate':
      return url ? { type: 'navigate', url } : need('url');
    case 'wait':
      return { type: 'wait', seconds: Math.max(0, Math.min(MAX_WAIT_SECONDS, seconds ?? 1)) };
    case 'extract':
      return { type: 'extract', instruction: text || request.task };
    case 'request_input':
      if (!request.interactive) return 'input requests need interactive mode';
      return ref ? { type: 'request_input', ref, description: text ?? '' } : need('ref');
    case 'done':
      return { type: 'done', answer: text ?? '' };
    case 'abort':
      return { type: 'abort', reason: text || 'the agent gave up' };
  }
}

/**
 * A fill's value from the data (named by path, or copied from it by the model), or the model's
 * own, with where it came from: the session's firewall treats each source differently.
 */
export function fillOf(action: Extract<AgentAction, { type: 'fill' }>, data: unknown): BrowserAction | string {
  if (action.dataPath) {
    const value = valueAt(data, action.dataPath);
    if (value === undefined) return `the data holds nothing at ${action.dataPath}`;
    return { type: 'fill', ref: action.ref, value, source: 'data', credential: isCredential(action.dataPath, value) };
  }
  const path = pathOfValue(data, action.value);
  if (path === undefined)
    return { type: 'fill', ref: action.ref, value: action.value, source: 'model', credential: false };
  return {
    type: 'fill',
    ref: action.ref,
    value: action.value,
    source: 'data',
    credential: isCredential(path, action.value),
  };
}

export interface ShownArguments {
  ref: string | null;
  value: string | null;
}

/** What events show of an action's arguments: a value from the data by its path, never a secret. */
export function shownArguments(action: AgentAction | BrowserAction): ShownArguments {
  const ref = 'ref' in action && action.ref !== undefined ? action.ref : null;
  switch (action.type) {
    case 'fill':
      if ('dataPath' in action && action.dataPath) return { ref, value: `data.${action.dataPath}` };
      if ('source' in action && action.source === 'data') return { ref, value: '(from data)' };
      return { ref, value: action.value };
    case 'select':
      return { ref, value: action.value };
    case 'press':
      return { ref, value: action.key };
    case 'navigate':
      return { ref, value: action.url };
    case 'scroll':
      return { ref, value: action.direction };
    default:
      return { ref, value: null };
  }
}

/** How the model's step notes name an action: its type, then what events show of it. */
export function describedAction(type: string, shown: ShownArguments): string {
  return `${type}${shown.ref ? ` ${shown.ref}` : ''}${shown.value ? ` "${shown.value}"` : ''}`;
}
