import type { FormatReply, StandInScript } from './modelStandIn';

/**
 * The model's answers for a research run on the corpus's volcano pages: a plan, high-rated page
 * analyses, a coverage evaluation, a report (and `fast`'s answer) citing notes 1, 2 and one never
 * read, and an approving review. Each answer is kept for every call of its kind; `extra` replaces kinds.
 */

const json = (value: unknown): string => JSON.stringify(value);

export const PLAN = {
  objective: 'Explain the volcanoes of Iceland and their eruptions.',
  plan: 'Cover the active systems, notable eruptions and lava.',
  complexity: 'moderate',
  questions: ['Why is Iceland volcanic?', 'Which eruptions mattered most?', 'What lava do they produce?'],
  queries: ['Iceland volcanoes eruption', 'lava types pahoehoe'],
};

/** The writer cites notes 1 and 2, and a 42 that was never read. */
export const REPORT = {
  report:
    '# Volcanoes of Iceland\n\nIceland lies on the Mid-Atlantic Ridge [1]. Lava comes in two kinds [2]. A claim from nowhere [42].\n\n## Sources\n\n1. Made up',
};

export function volcanoScript(extra: Record<string, FormatReply[]> = {}): Record<string, FormatReply[]> {
  return {
    research_plan: [{ content: json(PLAN), keep: true }],
    page_analysis: [
      {
        content: json({
          relevance: 'high',
          reliability: 'high',
          summary: 'An Icelandic volcano page.',
          keyFacts: ['Iceland has about 30 active volcanic systems.'],
          promisingLinks: [],
        }),
        keep: true,
      },
    ],
    coverage_evaluation: [
      {
        content: json({
          coverage: 'Moderate',
          assessments: [
            {
              question: 'Why is Iceland volcanic?',
              status: 'answered',
              findings: 'It sits on the Mid-Atlantic Ridge.',
            },
            { question: 'What lava do they produce?', status: 'partial', findings: 'Basalt; the kinds are unclear.' },
          ],
          gaps: 'More on lava',
          shouldContinue: true,
          nextQueries: ['Laki 1783 fissure'],
          newQuestions: [],
        }),
        keep: true,
      },
    ],
    research_report: [{ content: json(REPORT), keep: true }],
    research_answer: [{ content: json(REPORT), keep: true }],
    report_review: [{ content: json({ approved: true, score: 8, observation: 'Sound.', feedback: '' }), keep: true }],
    ...extra,
  };
}

/** Scripts the shared model stand-in: answers by the requested schema's name. */
export async function scriptModel(byFormat: Record<string, FormatReply[]>): Promise<void> {
  const body: StandInScript = { replies: [], byFormat };
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(body) });
}

/** The events of a `fast` run, in order, as the hosted service streams them. */
export const FAST_EVENTS = [
  'start',
  'planning:start',
  'planning:end',
  'iteration:start',
  'searching:start',
  'searching:end',
  'iteration:end',
  'writing:start',
  'writing:end',
  'complete',
];
