import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MODEL_FAILED } from '../errors';
import type { ChatMessage, ModelClient, TokenUsage } from '../model/modelClient';
import type { ModelTask } from '../model/tasks';
import {
  analyzePrompt,
  evaluatePrompt,
  judgePrompt,
  outlinePrompt,
  planPrompt,
  RESEARCH_PROMPT_VERSION,
  writePrompt,
  type AnalyzeInput,
  type EvaluateInput,
  type Evaluation,
  type JudgeInput,
  type Outline,
  type OutlineInput,
  type PageAnalysis,
  type Plan,
  type PlanInput,
  type Prompt,
  type Verdict,
  type WriteInput,
} from '../prompts/research.v1';
import { compileSchema } from '../structured/schema';
import { modelFailure } from './failures';

/** A model's answer to one research step, with what it cost. */
export interface ResearchReply<T> {
  value: T;
  usage: TokenUsage;
  model: string;
  promptVersion: string;
}

/** Bounds on what answers carry back into the run's history, whatever the model wrote. */
const MAX_TEXT = 2_000;
const MAX_ITEM = 500;
const MAX_REPORT = 200_000;

const clip = (text: string, max = MAX_TEXT) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const clipAll = (items: string[], count: number, max = MAX_ITEM) =>
  items
    .map((item) => item.trim())
    .filter(Boolean)
    .slice(0, count)
    .map((item) => clip(item, max));

function parseJson(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return JSON.parse(fenced ? fenced[1]! : text);
}

function addUsage(total: TokenUsage, usage: TokenUsage): void {
  total.prompt += usage.prompt;
  total.completion += usage.completion;
  total.total += usage.total;
}

/**
 * Research's model calls, one activity per step. Each asks for JSON matching the step's schema
 * and checks the answer; an answer that fails is shown its errors and asked for once more, then
 * the step fails for good (a model that cannot follow the schema will not on a retry either).
 */
export function createResearchActivities(client: ModelClient) {
  const checks = new Map<string, (value: unknown) => string[]>();

  async function ask<T>(task: ModelTask, prompt: Prompt): Promise<ResearchReply<T>> {
    let check = checks.get(prompt.schemaName);
    if (!check) checks.set(prompt.schemaName, (check = compileSchema(prompt.schema)));
    const messages: ChatMessage[] = [
      { role: 'system', content: prompt.system },
      { role: 'user', content: prompt.user },
    ];
    const usage: TokenUsage = { prompt: 0, completion: 0, total: 0 };
    let errors: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      let reply;
      try {
        reply = await client.chat({
          task,
          messages,
          format: { type: 'json_schema', name: prompt.schemaName, schema: prompt.schema, strict: true },
          signal: Context.current().cancellationSignal,
        });
      } catch (err) {
        throw modelFailure(err);
      }
      addUsage(usage, reply.usage);
      Context.current().log.info('model call', {
        task,
        model: reply.model,
        usage: reply.usage,
        promptVersion: RESEARCH_PROMPT_VERSION,
      });
      let value: unknown;
      try {
        value = parseJson(reply.text);
        errors = check(value);
      } catch {
        errors = ['the answer is not valid JSON'];
      }
      if (errors.length === 0)
        return { value: value as T, usage, model: reply.model, promptVersion: RESEARCH_PROMPT_VERSION };
      messages.push(
        { role: 'assistant', content: reply.text.slice(0, 20_000) },
        {
          role: 'user',
          content: `Your answer did not match the JSON Schema:\n${errors.map((e) => `- ${e}`).join('\n')}\n\nAnswer again with one JSON object that matches it.`,
        },
      );
    }
    throw ApplicationFailure.nonRetryable(`${task}: no answer matched the schema: ${errors.join('; ')}`, MODEL_FAILED);
  }

  return {
    async planResearch(input: PlanInput): Promise<ResearchReply<Plan>> {
      const reply = await ask<Plan>('research-plan', planPrompt(input));
      const plan = reply.value;
      return {
        ...reply,
        value: {
          objective: clip(plan.objective),
          plan: clip(plan.plan, 4_000),
          complexity: plan.complexity,
          questions: clipAll(plan.questions, 6),
          queries: clipAll(plan.queries, input.maxQueries, 200),
        },
      };
    },

    async analyzePage(input: AnalyzeInput): Promise<ResearchReply<PageAnalysis>> {
      const reply = await ask<PageAnalysis>('research-analyze', analyzePrompt(input));
      const analysis = reply.value;
      // The model may only point at links the page has: a URL it made up is never followed.
      const known = new Set(input.page.links.map((link) => link.url));
      return {
        ...reply,
        value: {
          relevance: analysis.relevance,
          reliability: analysis.reliability,
          summary: clip(analysis.summary, 1_500),
          keyFacts: clipAll(analysis.keyFacts, 8),
          promisingLinks: [...new Set(analysis.promisingLinks.map((url) => url.trim()))]
            .filter((url) => known.has(url))
            .slice(0, input.maxLinks),
        },
      };
    },

    async evaluateCoverage(input: EvaluateInput): Promise<ResearchReply<Evaluation>> {
      const reply = await ask<Evaluation>('research-evaluate', evaluatePrompt(input));
      const evaluation = reply.value;
      const executed = new Set(input.executedQueries.map((query) => query.toLowerCase()));
      return {
        ...reply,
        value: {
          coverage: evaluation.coverage,
          assessments: evaluation.assessments
            .slice(0, 12)
            .map((a) => ({ question: clip(a.question, MAX_ITEM), status: a.status, findings: clip(a.findings) })),
          gaps: clip(evaluation.gaps),
          shouldContinue: evaluation.shouldContinue,
          nextQueries: clipAll(evaluation.nextQueries, input.maxQueries, 200).filter(
            (query) => !executed.has(query.toLowerCase()),
          ),
          newQuestions: clipAll(evaluation.newQuestions, 2),
        },
      };
    },

    async outlineReport(input: OutlineInput): Promise<ResearchReply<Outline>> {
      const reply = await ask<Outline>('research-outline', outlinePrompt(input));
      const outline = reply.value;
      const ids = new Set(input.notes.map((note) => note.id));
      return {
        ...reply,
        value: {
          directAnswer: clip(outline.directAnswer),
          keyTakeaways: clipAll(outline.keyTakeaways, 8),
          outline: clip(outline.outline, 6_000),
          sourceIds: [...new Set(outline.sourceIds)].filter((id) => ids.has(id)),
        },
      };
    },

    async writeReport(input: WriteInput): Promise<ResearchReply<{ report: string }>> {
      const reply = await ask<{ report: string }>('research-write', writePrompt(input));
      return { ...reply, value: { report: clip(reply.value.report.trim(), MAX_REPORT) } };
    },

    async judgeReport(input: JudgeInput): Promise<ResearchReply<Verdict>> {
      const reply = await ask<Verdict>('research-judge', judgePrompt(input));
      const verdict = reply.value;
      return {
        ...reply,
        value: {
          approved: verdict.approved,
          score: Math.max(0, Math.min(10, Math.round(verdict.score))),
          observation: clip(verdict.observation),
          feedback: clip(verdict.feedback, 4_000),
        },
      };
    },
  };
}

export type ResearchModelActivities = ReturnType<typeof createResearchActivities>;
