import { html, startFixtureServer, type FixtureServer, type Handler } from './fixtureServer';

/**
 * A small web for research tests: 33 articles on three topics (volcanoes of Iceland, honeybees,
 * Roman aqueducts), each linking to others of its topic from its text, plus the awkward ones a
 * crawler meets: a page that answers slowly, one that always fails, and one robots.txt
 * disallows. Served on loopback (FIXTURE_HOST); `searchCorpus` ranks the pages for a query, as
 * the SearXNG stand-in serves them.
 */

export interface CorpusPage {
  path: string;
  title: string;
  topic: string;
  paragraphs: string[];
  /** Paths of the pages its text links to. */
  links: string[];
}

export const SLOW_PATH = '/volcanoes/monitoring-stations';
export const FAILING_PATH = '/bees/colony-collapse-archive';
export const DISALLOWED_PATH = '/private/aqueduct-survey-notes';
/** How long the slow page keeps its answer back. */
export const SLOW_MS = 2_500;

type Article = [slug: string, title: string, ...facts: string[]];

const TOPICS: Record<string, Article[]> = {
  volcanoes: [
    [
      'overview',
      'Volcanoes of Iceland',
      'Iceland sits on the Mid-Atlantic Ridge, where the North American and Eurasian plates pull apart by about two centimetres a year.',
      'The island has around 30 active volcanic systems, and an eruption happens on average every four to five years.',
    ],
    [
      'eyjafjallajokull-2010',
      'The 2010 Eyjafjallajökull eruption',
      'The Eyjafjallajökull eruption began on 20 March 2010 and its explosive phase started on 14 April 2010.',
      'Its ash cloud closed much of European airspace for six days, cancelling about 100,000 flights.',
    ],
    [
      'hekla',
      'Hekla, the gateway to hell',
      'Hekla has erupted more than 20 times since 874 AD; its last eruption was in February 2000.',
      'Medieval writers called Hekla the gateway to hell.',
    ],
    [
      'katla',
      'Katla under the Mýrdalsjökull glacier',
      'Katla lies beneath the Mýrdalsjökull ice cap and last erupted in 1918.',
      'Eruptions of Katla melt the glacier and send floods called jökulhlaups to the coast.',
    ],
    [
      'laki-1783',
      'The Laki fissure eruption of 1783',
      'The Laki fissure erupted for eight months from June 1783, releasing about 14 cubic kilometres of basalt lava.',
      "The haze of fluorine and sulphur killed half of Iceland's livestock and led to a famine.",
    ],
    [
      'reykjanes-2021',
      'The Reykjanes peninsula eruptions since 2021',
      'After 800 quiet years, the Reykjanes peninsula began erupting at Fagradalsfjall on 19 March 2021.',
      'Later eruptions near Grindavík from 2023 forced the town to be evacuated.',
    ],
    [
      'lava-types',
      'Lava types: pahoehoe and aa',
      'Pahoehoe lava has a smooth, ropy surface, while aa lava is rough and made of broken blocks.',
      'Icelandic basalt lava is runny because it is low in silica.',
    ],
    [
      'geothermal-energy',
      'Geothermal energy in Iceland',
      'About 90 percent of Icelandic homes are heated with geothermal water.',
      "Geothermal plants such as Hellisheiði also produce about a quarter of the country's electricity.",
    ],
    [
      'jokulhlaup',
      'Glacial outburst floods',
      'A jökulhlaup is a sudden flood released when a volcano melts the ice above it.',
      'The 1996 Gjálp eruption under Vatnajökull caused a jökulhlaup that destroyed a bridge on the ring road.',
    ],
    [
      'surtsey',
      'Surtsey, the island born in 1963',
      'Surtsey rose from the sea off southern Iceland in an eruption that lasted from November 1963 to June 1967.',
      'It is a UNESCO World Heritage Site studied for how life colonises new land.',
    ],
    [
      'monitoring-stations',
      'How Iceland monitors its volcanoes',
      'The Icelandic Meteorological Office watches volcanoes with seismometers, GPS stations and gas sensors.',
      'Swarms of small earthquakes usually come before an eruption.',
    ],
  ],
  bees: [
    [
      'overview',
      'Honeybees',
      'The western honeybee, Apis mellifera, lives in colonies of 20,000 to 80,000 bees.',
      'A colony has one queen, a few hundred drones and thousands of female workers.',
    ],
    [
      'waggle-dance',
      'The waggle dance',
      'Forager bees tell nest mates where flowers are with the waggle dance.',
      'The angle of the waggle run shows the direction relative to the sun, and its length shows the distance.',
    ],
    [
      'queen',
      'The queen bee',
      'A queen can lay up to 2,000 eggs a day in spring.',
      'Larvae fed only royal jelly develop into queens.',
    ],
    [
      'pollination',
      'Pollination by honeybees',
      'Honeybees pollinate crops such as almonds, apples and oilseed rape.',
      'In the United States, about 2 million colonies are rented each year for almond pollination in California.',
    ],
    [
      'varroa',
      'The Varroa mite',
      'The Varroa destructor mite feeds on bee larvae and adults and spreads deformed wing virus.',
      'Varroa is considered the most serious threat to honeybee colonies worldwide.',
    ],
    [
      'honey-making',
      'How bees make honey',
      'Bees turn nectar into honey by adding enzymes and fanning it until its water content falls below about 18 percent.',
      'A worker bee makes about one twelfth of a teaspoon of honey in her life.',
    ],
    [
      'winter-cluster',
      'How colonies survive winter',
      'In winter the bees form a cluster and shiver their flight muscles to keep its centre near 35 degrees Celsius.',
      'Winter bees live for months, while summer workers live about six weeks.',
    ],
    [
      'swarming',
      'Swarming',
      'A colony reproduces by swarming: the old queen leaves with about half of the workers.',
      'Scout bees choose the new nest site by a kind of vote.',
    ],
    [
      'wild-bees',
      'Wild bees and honeybees',
      'There are more than 20,000 species of bees, most of them solitary.',
      'Wild bees such as bumblebees pollinate some crops better than honeybees do.',
    ],
    [
      'beekeeping-history',
      'A short history of beekeeping',
      'People have kept bees for at least 9,000 years; clay hives from about 900 BC were found at Tel Rehov in Israel.',
      'The movable-frame hive patented by Lorenzo Langstroth in 1852 is still the common design.',
    ],
    [
      'colony-collapse-archive',
      'Colony collapse disorder archive',
      'Colony collapse disorder was reported in the United States in 2006.',
      'Workers vanished from hives leaving the queen and brood behind.',
    ],
  ],
  aqueducts: [
    [
      'overview',
      'Roman aqueducts',
      'The city of Rome was supplied by eleven aqueducts built between 312 BC and 226 AD.',
      'Together they brought about one million cubic metres of water a day.',
    ],
    [
      'aqua-appia',
      'Aqua Appia',
      "The Aqua Appia, built in 312 BC by Appius Claudius Caecus, was Rome's first aqueduct.",
      'It ran almost entirely underground for about 16 kilometres.',
    ],
    [
      'pont-du-gard',
      'The Pont du Gard',
      'The Pont du Gard in southern France carried the Nîmes aqueduct across the Gardon river.',
      'Its three tiers of arches stand about 49 metres high.',
    ],
    [
      'gradient',
      'How aqueducts kept their slope',
      'Roman aqueducts flowed by gravity with very gentle gradients, the Nîmes aqueduct dropping only about 25 centimetres per kilometre.',
      'Surveyors used an instrument called the chorobates to level the course.',
    ],
    [
      'frontinus',
      'Frontinus, water commissioner',
      'Sextus Julius Frontinus became water commissioner of Rome in 97 AD.',
      'His treatise De aquaeductu describes the aqueducts and the fraud of illegal taps.',
    ],
    [
      'aqua-claudia',
      'Aqua Claudia',
      'The Aqua Claudia was begun by Caligula in 38 AD and finished by Claudius in 52 AD.',
      'Its arches still stand in the Parco degli Acquedotti in Rome.',
    ],
    [
      'segovia',
      'The aqueduct of Segovia',
      'The aqueduct of Segovia in Spain has 167 arches built from granite blocks without mortar.',
      'It carried water to the city until the 20th century.',
    ],
    [
      'concrete',
      'Roman concrete in aqueducts',
      'Roman builders used opus caementicium, a concrete made with lime and volcanic ash called pozzolana.',
      'Channels were lined with a waterproof mortar called opus signinum.',
    ],
    [
      'castellum',
      'Distribution tanks',
      'At the city end, water entered a distribution tank called a castellum divisorium.',
      'From there lead pipes carried it to fountains, baths and private houses.',
    ],
    [
      'decline',
      "The end of Rome's aqueducts",
      'During the Gothic siege of Rome in 537 AD the besiegers cut the aqueducts.',
      'Several were later restored by the popes, such as the Aqua Virgo feeding the Trevi Fountain.',
    ],
    [
      'aqueduct-survey-notes',
      'Survey notes (private)',
      'Internal survey notes that robots.txt keeps crawlers away from.',
      'They repeat that the Pont du Gard stands about 49 metres high.',
    ],
  ],
};

/** Articles served outside their topic's folder. */
const MOVED: Record<string, string> = { '/aqueducts/aqueduct-survey-notes': DISALLOWED_PATH };

function pathOf(topic: string, slug: string): string {
  return MOVED[`/${topic}/${slug}`] ?? `/${topic}/${slug}`;
}

/** Every page of the corpus, each topic's pages linking to the next two of its topic. */
export const CORPUS: CorpusPage[] = Object.entries(TOPICS).flatMap(([topic, articles]) =>
  articles.map(([slug, title, ...facts], index) => ({
    path: pathOf(topic, slug),
    title,
    topic,
    paragraphs: facts,
    links: [1, 2].map((step) => articles[(index + step) % articles.length]!).map(([other]) => pathOf(topic, other)),
  })),
);

const byPath = new Map(CORPUS.map((page) => [page.path, page]));

function render(page: CorpusPage): string {
  const linked = page.links.map((path) => `<a href="${path}">${byPath.get(path)!.title}</a>`).join(' and ');
  const paragraphs = page.paragraphs.map((text) => `<p>${text} ${text}</p>`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${page.title}</title></head><body>
<nav><a href="/">Home</a> <a href="/${page.topic}/overview">${page.topic}</a></nav>
<main><article><h1>${page.title}</h1>
${paragraphs}
<p>Read more in ${linked}.</p>
</article></main><footer>Corpus for tests</footer></body></html>`;
}

const ROBOTS = `User-agent: *\nDisallow: /private/\n`;

export async function startResearchCorpus(): Promise<FixtureServer> {
  const routes: Record<string, Handler> = { '/robots.txt': html(ROBOTS, 'text/plain') };
  for (const page of CORPUS) routes[page.path] = html(render(page));
  routes[SLOW_PATH] = (req, res) => setTimeout(() => html(render(byPath.get(SLOW_PATH)!))(req, res), SLOW_MS);
  routes[FAILING_PATH] = html('<html><body><h1>Internal error</h1></body></html>', 'text/html', 500);
  return startFixtureServer(routes);
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'in',
  'and',
  'or',
  'to',
  'is',
  'how',
  'what',
  'why',
  'when',
  'does',
  'do',
  'are',
  'for',
  'on',
  'by',
]);

/** The pages matching a query, best first: words of the query found in the title count three times. */
export function searchCorpus(query: string): CorpusPage[] {
  const terms = [...new Set(words(query))].filter((term) => !STOP.has(term));
  const scored = CORPUS.map((page) => {
    const title = new Set(words(page.title));
    const body = new Set(words(page.paragraphs.join(' ')));
    const score = terms.reduce((sum, term) => sum + (title.has(term) ? 3 : 0) + (body.has(term) ? 1 : 0), 0);
    return { page, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.page.path.localeCompare(b.page.path))
    .map((entry) => entry.page);
}
