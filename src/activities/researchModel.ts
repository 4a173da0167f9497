import type { ModelClient } from '../model/modelClient';
import {
  analyzePrompt,
  answerPrompt,
  evaluatePrompt,
  judgePrompt,
  outlinePrompt,
  planPrompt,
  RESEARCH_PROMPT_VERSION,
  writePrompt,
  type AnalyzeInput,
  type AnswerInput,
  type EvaluateInput,
  type Evaluation,
  type JudgeInput,
  type Outline,
  type OutlineInput,
  type PageAnalysis,
  type Plan,
  type PlanInput,
  type Verdict,
  type WriteInput,
} from '../prompts/research.v1';
import { SOURCES_HEADING } from '../research/citations';
import { structuredAsker, type ModelReply } from '../model/structuredAsk';

/** A model's answer to one research step, with what it cost. */
export type ResearchReply<T> = ModelReply<T>;

/** Bounds on what answers carry back into the run's history, whatever the model wrote. */
const MAX_TEXT = 2_000;
const MAX_ITEM = 500;
const MAX_REPORT = 200_000;

/**
 * A heading line: `fast`'s answer is prose, so a title or section the model adds anyway goes;
 * a sources heading stays, for finalizeReport to cut the list under it.
 */
const HEADING_LINE = /^[ \t]{0,3}#{1,6}(?:[ \t][^\n]*)?$/gm;

/** `fast`'s answer as it leaves the model: clipped, without headings, but for a sources list's. */
export function proseAnswer(text: string): string {
  return text
    .slice(0, MAX_REPORT)
    .replace(HEADING_LINE, (line) => (SOURCES_HEADING.test(line.trim()) ? line : ''))
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const clip = (text: string, max = MAX_TEXT) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const clipAll = (items: string[], count: number, max = MAX_ITEM) =>
  items
    .map((item) => item.trim())
    .filter(Boolean)
    .slice(0, count)
    .map((item) => clip(item, max));

/**
 * Research's model calls, one activity per step, each asked for JSON matching its schema (see
 * structuredAsker) and clipped to bounds before it joins the run's history.
 */
export function createResearchActivities(client: ModelClient) {
  const ask = structuredAsker(client, RESEARCH_PROMPT_VERSION);

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

    async writeAnswer(input: AnswerInput): Promise<ResearchReply<{ report: string }>> {
      const reply = await ask<{ report: string }>('research-write', answerPrompt(input));
      return { ...reply, value: { report: proseAnswer(reply.value.report) } };
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
