import type { AutomateRequest, Observation } from '../operations/automate';
import type { PageView, TaskContext } from '../prompts/automate.v1';

/** The page as the model's prompts take it: its snapshot, not its screenshot. */
export function pageView(page: Observation): PageView {
  return { url: page.url, title: page.title, snapshot: page.snapshot, truncated: page.truncated };
}

/** What every model step is told of the task; `shownData` is the caller's data, credentials masked. */
export function taskContext(request: AutomateRequest, shownData: string | undefined): TaskContext {
  const { task, url, guardrails } = request;
  return {
    task,
    ...(url ? { startUrl: url } : {}),
    ...(shownData ? { data: shownData } : {}),
    ...(guardrails ? { guardrails } : {}),
  };
}
