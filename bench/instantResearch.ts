import type { Stack } from '../test/support/localStack';
import type { FormatReply } from '../test/support/modelStandIn';

/** The model stand-in's answers for Research benchmarks: instant, and a run that completes. */

const answer = (value: unknown): FormatReply => ({ content: JSON.stringify(value), keep: true });

/** Instant answers: a plan over the corpus, every page useful, two rounds in balanced, an approved report. */
const REPLIES: Record<string, FormatReply[]> = {
  research_plan: [
    answer({
      objective: 'Volcanoes, bees and aqueducts',
      plan: 'Read the corpus',
      complexity: 'moderate',
      questions: ['Which volcanoes erupted?', 'How do bees communicate?', 'How did aqueducts flow?'],
      // Clear of the corpus's slow and failing pages, so the times are the service's.
      queries: ['Hekla Katla Laki lava', 'waggle dance honey', 'Pont du Gard Segovia aqueduct'],
    }),
  ],
  page_analysis: [
    answer({
      relevance: 'high',
      reliability: 'high',
      summary: 'A useful page.',
      keyFacts: ['A fact from the page.'],
      promisingLinks: [],
    }),
  ],
  coverage_evaluation: [
    {
      content: JSON.stringify({
        coverage: 'Moderate',
        assessments: [],
        gaps: 'More',
        shouldContinue: true,
        nextQueries: ['Surtsey geothermal', 'Frontinus Aqua Appia'],
        newQuestions: [],
      }),
    },
    answer({ coverage: 'Solid', assessments: [], gaps: '', shouldContinue: false, nextQueries: [], newQuestions: [] }),
  ],
  research_report: [answer({ report: '# Report\n\nA first claim [1]. A second claim [2].' })],
  research_answer: [answer({ report: 'A first claim [1]. A second claim [2].' })],
  report_review: [answer({ approved: true, score: 8, observation: 'Good', feedback: '' })],
};

/** Scripts the model stand-in; with `delayMs`, every answer (the unscripted outline's too) takes that long. */
export async function scriptInstantModel(stack: Stack, delayMs?: number): Promise<void> {
  await fetch(`${stack.modelUrl}/__control/script`, {
    method: 'POST',
    body: JSON.stringify({ replies: [], byFormat: REPLIES, ...(delayMs ? { delayMs } : {}) }),
  });
}
