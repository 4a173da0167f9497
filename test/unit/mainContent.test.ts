import { parseHTML } from 'linkedom';
import { mainContent } from '../../src/extraction/mainContent';
import { toMarkdown } from '../../src/extraction/markdown';
import { extractMetadata } from '../../src/extraction/metadata';
import { removeInvisible } from '../../src/extraction/prepare';

/** The production path short of fetching: parse, clean, main content, Markdown. */
function extract(html: string): string {
  const { document } = parseHTML(html);
  const url = 'https://news.example/story/quay';
  const { signs } = extractMetadata(document, url);
  removeInvisible(document);
  const root = mainContent(document, { ...signs, url });
  return root ? toMarkdown(root) : '<undefined>';
}

const sentence = (topic: string, i: number) =>
  `The ${topic} report number ${i} describes, in some detail, how the harbour council met again on Tuesday evening, and what the fishermen said about the new quay.`;

const navigation = `<header class="site-header"><a href="/">Harbour Times</a>
  <nav><ul>${['News', 'Sport', 'Weather', 'Opinion', 'Culture'].map((s) => `<li><a href="/${s}">${s}</a></li>`).join('')}</ul></nav></header>`;

const footer = `<footer class="site-footer"><p>Copyright 2024 Harbour Times. All rights reserved. Registered in England and Wales as a company.</p>
  <ul><li><a href="/about">About us</a></li><li><a href="/contact">Contact</a></li><li><a href="/privacy">Privacy policy</a></li></ul></footer>`;

const articlePage = `<!doctype html><html><head><title>Quay vote</title><meta property="og:type" content="article"></head><body>
${navigation}
<div id="cookie-banner" class="cookie-consent"><p>We use cookies to improve your experience on our website, to measure traffic and to personalise ads. <a href="/cookies">Manage settings</a></p><button>Accept all</button></div>
<div class="layout">
  <main>
    <article>
      <h1>Council votes to rebuild the old quay</h1>
      <div class="share-buttons"><a href="https://facebook.com/share">Share on Facebook</a> <a href="https://twitter.com/share">Share on Twitter</a> <a href="mailto:?">Email this story</a></div>
      <div class="article-body">
        <p>${sentence('first', 1)}</p>
        <p>${sentence('second', 2)}</p>
        <h2>What happens next</h2>
        <p>${sentence('third', 3)}</p>
        <ul><li>Stone delivered in spring, before the fishing season opens</li><li>Work on the north wall during the summer months</li></ul>
        <table><thead><tr><th>Phase</th><th>Cost</th></tr></thead><tbody><tr><td>North wall</td><td>£1.2m</td></tr><tr><td>South steps</td><td>£0.4m</td></tr></tbody></table>
        <pre><code class="language-python">print("quay rebuilt")</code></pre>
        <p>${sentence('fourth', 4)}</p>
      </div>
      <div class="related-articles"><h3>Related stories</h3><ul>
        <li><a href="/a">Harbour master retires after forty years at sea</a></li>
        <li><a href="/b">Lifeboat crew rescues two sailors off the point</a></li>
        <li><a href="/c">New fish market opens on the east pier</a></li></ul></div>
    </article>
  </main>
  <aside class="sidebar"><h3>Most read</h3><ol><li><a href="/x">Storm warning for the weekend across the whole coast</a></li><li><a href="/y">Ferry timetable changes announced by the operator</a></li></ol></aside>
</div>
${footer}
</body></html>`;

describe('mainContent on an article', () => {
  const markdown = extract(articlePage);

  it('keeps the h1 title as h1, the paragraphs, the subheading, the list, the table and the code block', () => {
    expect(markdown).toMatch(/^# Council votes to rebuild the old quay$/m);
    for (let i = 1; i <= 4; i++) expect(markdown).toContain(`report number ${i} describes`);
    expect(markdown).toMatch(/^## What happens next$/m);
    expect(markdown).toMatch(/^- Stone delivered in spring/m);
    expect(markdown).toContain('| Phase | Cost |');
    expect(markdown).toContain('| North wall | £1.2m |');
    expect(markdown).toContain('```python\nprint("quay rebuilt")\n```');
  });

  it('drops navigation, footer, share widgets, the cookie banner, related links and the sidebar', () => {
    expect(markdown).not.toContain('Sport');
    expect(markdown).not.toContain('Copyright');
    expect(markdown).not.toContain('Privacy policy');
    expect(markdown).not.toContain('Share on Facebook');
    expect(markdown).not.toContain('cookies');
    expect(markdown).not.toContain('Harbour master retires');
    expect(markdown).not.toContain('Related stories');
    expect(markdown).not.toContain('Storm warning');
  });
});

describe('mainContent on a forum thread', () => {
  const posts = Array.from(
    { length: 5 },
    (_, i) => `<div class="post" id="post-${i + 1}"><div class="post-author"><a href="/u/${i}">user${i}</a></div>
      <div class="post-body"><p>Reply ${i + 1}: ${i === 0 ? 'My outboard engine stalls whenever the tide turns; has anyone seen this before?' : `I had the same problem with mine, and cleaning the fuel filter fixed it for me (post ${i + 1}).`}</p></div></div>`,
  ).join('\n');
  const page = `<!doctype html><html><body>${navigation}
    <div class="container"><div class="thread"><h1>Outboard engine stalls at the turn of the tide</h1>${posts}</div>
    <aside class="sidebar"><h3>Similar threads</h3><ul><li><a href="/t/1">Anchors</a></li><li><a href="/t/2">Sails</a></li></ul></aside></div>
    ${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps every post and the thread title', () => {
    expect(markdown).toMatch(/^# Outboard engine stalls at the turn of the tide$/m);
    for (let i = 1; i <= 5; i++) expect(markdown).toContain(`Reply ${i}:`);
  });

  it('drops the site furniture around the thread', () => {
    expect(markdown).not.toContain('Similar threads');
    expect(markdown).not.toContain('Copyright');
    expect(markdown).not.toContain('Weather');
  });
});

describe('mainContent on an empty page', () => {
  it('returns undefined so the caller falls back to the body', () => {
    expect(extract('<!doctype html><html><body><div></div></body></html>')).toBe('<undefined>');
  });
});

describe('mainContent on a page a script reveals', () => {
  const page = `<!doctype html><html><body>${navigation}
    <div class="age-gate"><p>Are you over 18? Confirm your age to enter this store.</p></div>
    <div class="store-content" style="display:none"><h1>Dark roast coffee</h1>
      <p>${sentence('product', 1)}</p><p>${sentence('product', 2)}</p><p>${sentence('product', 3)}</p>
      <div hidden><p>Size chart for the mug that ships with every second order of this roast.</p></div></div>
    ${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps a hidden block that holds most of the page, and still drops small hidden ones', () => {
    for (let i = 1; i <= 3; i++) expect(markdown).toContain(`report number ${i} describes`);
    expect(markdown).not.toContain('Size chart');
  });
});

describe('mainContent on an article that quotes a post', () => {
  const page = `<!doctype html><html><body>${navigation}<article>
    <p>${sentence('first', 1)}</p>
    <div class="social-media-embed"><blockquote class="twitter-tweet"><p>The quay vote was the closest the town has seen in fifty years. <a href="https://t.co/x">t.co/x</a></p>— Harbour Watch (@harbourwatch) <a href="https://twitter.com/harbourwatch/status/1">November 18, 2019</a></blockquote></div>
    <div class="social-share"><a href="https://facebook.com/share">Share on Facebook</a> <a href="https://twitter.com/share">Share on Twitter</a></div>
    <p>${sentence('second', 2)}</p></article>${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps the quoted post though its wrapper is named like a share bar, and drops the share bar', () => {
    expect(markdown).toContain('closest the town has seen in fifty years');
    expect(markdown).not.toContain('Share on Facebook');
  });
});

describe('mainContent on a page with style-sheet visibility classes', () => {
  const page = `<!doctype html><html><body>${navigation}<article>
    <div class="field field--label-hidden"><p>${sentence('first', 1)}</p></div>
    <div class="overflow-hidden rounded"><p>${sentence('second', 2)}</p></div>
    <div class="hidden md:block"><p>${sentence('third', 3)}</p></div>
    <div class="hidden"><p>Your basket is empty. Add a product to see it here before checkout.</p></div>
    <div class="lg:hidden"><p>Tap here to open the mobile edition of the Harbour Times app.</p></div>
    <section class="elementor-section elementor-hidden-desktop"><p>Swipe left to see the next story in the mobile carousel.</p></section>
    <p>${sentence('fourth', 4)}</p></article>${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps blocks whose class only sounds hidden, or is shown again on a wide screen', () => {
    for (let i = 1; i <= 4; i++) expect(markdown).toContain(`report number ${i} describes`);
  });

  it('drops blocks a desktop browser hides by class', () => {
    expect(markdown).not.toContain('basket is empty');
    expect(markdown).not.toContain('mobile edition');
    expect(markdown).not.toContain('mobile carousel');
  });
});

describe('mainContent on a product grid in <main> beside a long legal footer', () => {
  const products = ['Wool Runner', 'Tree Dasher', 'Trail Glider', 'Canvas Piper']
    .map((name, i) => `<li class="product-card"><a href="/p/${i}">${name}</a><span>$${95 + i}</span></li>`)
    .join('');
  const page = `<!doctype html><html><body>${navigation}
    <div class="content-sidebar-wrap"><main><h1>Sneakers</h1><ul class="grid">${products}</ul></main></div>
    <footer><p>${sentence('privacy', 1)}</p><p>${sentence('privacy', 2)}</p></footer>
    <div class="cookie-consent"><p>${sentence('cookie', 3)}</p></div></body></html>`;
  const markdown = extract(page);

  it('keeps the grid in main though its wrapper is named like a sidebar, and drops the footer and the cookie text', () => {
    expect(markdown).toContain('Trail Glider');
    expect(markdown).not.toContain('report number');
  });
});

describe('mainContent on a short thread under a large consent manager', () => {
  const purposes = Array.from(
    { length: 8 },
    (_, i) =>
      `<h4>Purpose ${i + 1}</h4><p>${sentence('cookie purpose', i + 1)} These cookies may be set by our advertising partners to build a profile of your interests.</p>`,
  ).join('');
  const page = `<!doctype html><html><body>${navigation}
    <div class="thread"><div class="post"><p>Reply 1: My outboard engine stalls whenever the tide turns; has anyone seen this before?</p></div>
    <div class="post"><p>Reply 2: I had the same problem with mine, and cleaning the fuel filter fixed it for me.</p></div></div>
    <div id="onetrust-consent-sdk"><div class="ot-sdk-container">${purposes}</div></div>${footer}</body></html>`;
  const markdown = extract(page);

  it('drops the consent manager whatever its size and keeps the thread', () => {
    expect(markdown).toContain('Reply 1:');
    expect(markdown).toContain('Reply 2:');
    expect(markdown).not.toContain('Purpose');
  });
});

describe('mainContent on a page with a long dialog', () => {
  const policy = Array.from({ length: 6 }, (_, i) => `<p>${sentence('privacy', i)}</p>`).join('');
  const page = `<!doctype html><html><body>${navigation}<main>
    <h1>Wool runner</h1><p>${sentence('shoe', 1)}</p><p>${sentence('shoe', 2)}</p></main>
    <footer><div role="dialog" id="modal-privacy-policy"><h2>Privacy policy</h2>${policy}</div></footer></body></html>`;
  const markdown = extract(page);

  it('drops the dialog though it holds most of the text, and keeps the page', () => {
    expect(markdown).toContain('shoe report number 2');
    expect(markdown).not.toContain('privacy report');
  });
});

describe('mainContent on a thread that declares itself a discussion', () => {
  const replies = Array.from(
    { length: 4 },
    (_, i) =>
      `<div class="comment" id="comment-${i + 2}"><p>Reply ${i + 2}: I had the same problem with mine, and cleaning the fuel filter fixed it for me after a season of trouble on the river.</p></div>`,
  ).join('');
  const page = `<!doctype html><html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Outboard"}</script></head><body>${navigation}
    <div class="rules"><p>${sentence('forum rules', 1)}</p><p>${sentence('forum rules', 2)}</p></div>
    <div class="opening-post"><p>Reply 1: My outboard engine stalls whenever the tide turns; has anyone seen this before?</p></div>
    <div class="comments">${replies}</div>${footer}</body></html>`;

  it('keeps a comment-named block that holds most of the page: it is the thread', () => {
    const markdown = extract(page);
    for (let i = 1; i <= 5; i++) expect(markdown).toContain(`Reply ${i}:`);
  });
});

describe('mainContent on a page whose marked content a script reveals', () => {
  const menu = Array.from(
    { length: 40 },
    (_, i) => `<li><a href="/c/${i}">Vitamins and supplements for every need, aisle ${i}</a></li>`,
  ).join('');
  const page = `<!doctype html><html><body>${navigation}
    <div class="mega-menu" style="display: none"><ul>${menu}</ul></div>
    <div class="defer-block" style="display: none"><article><h1>Almond thins</h1>
      ${[1, 2, 3, 4].map((i) => `<p>${sentence('product', i)}</p>`).join('')}</article></div>
    ${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps the hidden block around the article, and still drops the hidden menu', () => {
    expect(markdown).toContain('product report number 2');
    expect(markdown).not.toContain('aisle 3');
  });
});

describe('mainContent on a discussion with one long post', () => {
  const log = Array.from(
    { length: 40 },
    (_, i) => `Line ${i}: the outboard engine log shows the fuel pressure dropping, then the engine stalls again.`,
  ).join(' ');
  const page = `<!doctype html><html><body itemscope itemtype="https://schema.org/DiscussionForumPosting">${navigation}
    <div class="thread"><div class="post"><p>Reply 1: My outboard engine stalls whenever the tide turns; has anyone seen this before?</p></div>
    <div class="post"><p>Reply 2: Here is my log, it happens to me too.</p><p>${log}</p></div>
    <div class="post"><p>Reply 3: Cleaning the fuel filter fixed it for me after a season of trouble.</p></div></div>${footer}</body></html>`;

  it('keeps the whole thread rather than the long post alone', () => {
    const markdown = extract(page);
    for (let i = 1; i <= 3; i++) expect(markdown).toContain(`Reply ${i}:`);
  });
});

describe('mainContent on an article with photos and pointers to other stories', () => {
  const page = `<!doctype html><html><body>${navigation}<article>
    <h1>Council votes to rebuild the old quay</h1>
    <figure><img src="https://news.example/quay.jpg" alt="The quay"><figcaption>The old quay at low tide, photographed last spring.</figcaption></figure>
    <p>${sentence('first', 1)}</p>
    <div class="gallery"><img src="https://news.example/pier.jpg" alt="The pier"><div class="caption"><div class="caption-full"><p>Fishermen mend their nets on the east pier on Tuesday morning.</p></div><div class="caption-truncated"><p>Fishermen mend their nets...</p></div></div><span class="photoCredit">Photo: Ann Smith, Harbour Times</span></div>
    <p>${sentence('second', 2)}</p>
    <p><strong><a href="https://www.news.example/story/ferry">READ MORE: Ferry strike ends after three days</a></strong></p>
    <p>${sentence('third', 3)}</p>
    <p><a href="https://council.example/quay-report.pdf">The council's full report on the quay works</a></p>
    <p>${sentence('fourth', 4)}</p></article>${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps the story and its images, and drops captions and photo credits', () => {
    for (let i = 1; i <= 4; i++) expect(markdown).toContain(`report number ${i} describes`);
    expect(markdown).toContain('![The quay](https://news.example/quay.jpg)');
    expect(markdown).toContain('![The pier](https://news.example/pier.jpg)');
    expect(markdown).not.toContain('low tide');
    expect(markdown).not.toContain('mend their nets');
    expect(markdown).not.toContain('Ann Smith');
  });

  it("drops a paragraph that only links to another story of the site, and keeps a link to another site's source", () => {
    expect(markdown).not.toContain('Ferry strike');
    expect(markdown).toContain("The council's full report on the quay works");
  });
});

describe('mainContent on a short blog post under a long discussion', () => {
  const comments = Array.from(
    { length: 8 },
    (_, i) => `<li class="comment"><p>${sentence(`reader ${i + 1}`, i + 1)} ${sentence('follow-up', i + 1)}</p></li>`,
  ).join('');
  const page = `<!doctype html><html><body>${navigation}<article class="post">
    <h1>Open thread: the quay</h1>
    <div class="entry-content"><p>Our open thread is the place to ask us anything about the quay works; we answer every question below.</p></div></article>
    <div id="comments" class="comments-area"><h2>Comments</h2><ol class="comment-list">${comments}</ol></div>${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps the post and drops the comments: the page marks its article body apart from them', () => {
    expect(markdown).toContain('Our open thread is the place');
    expect(markdown).not.toContain('reader 1 report');
  });
});

describe('mainContent on a short post followed by longer related posts', () => {
  const related = Array.from(
    { length: 5 },
    (_, i) =>
      `<article class="postbox"><h2><a href="/post-${i}">Another post ${i}</a></h2><p>${sentence(`related ${i}`, i)} ${sentence('more', i)}</p></article>`,
  ).join('');
  const page = `<!doctype html><html><body>${navigation}<div class="columns">
    <article class="articlebox"><h1>Who loves themselves</h1><p>${sentence('post', 1)} ${sentence('post', 2)}</p><p>${sentence('post', 3)}</p></article>
    <article class="postbox"><h3>Você pode gostar...</h3>${related}</article></div>${footer}</body></html>`;
  const markdown = extract(page);

  it('takes the article that holds the headline, not the larger block of related posts', () => {
    expect(markdown).toContain('post report number 1 describes');
    expect(markdown).not.toContain('Another post');
    expect(markdown).not.toContain('related 1 report');
  });
});

describe('mainContent on a round-up with a button under every item', () => {
  const items = ['Harbour Inn', 'Quay Cottage', 'Lighthouse Rooms'].map(
    (name, i) => `<div class="item"><h2>${name}</h2><p>${sentence(name, i + 1)}</p>
      <div class="cta"><a href="https://booking.example/${i}">Book now</a></div><p><a href="https://maps.example/${i}">Map</a></p></div>`,
  );
  const page = `<!doctype html><html><body>${navigation}<article><h1>Where to stay by the harbour</h1>${items.join('')}
    <p><a href="https://harbour.example/guide">The harbour guide</a></p></article>${footer}</body></html>`;
  const markdown = extract(page);

  it('drops the link labels every item repeats, and keeps a one-off link', () => {
    for (const name of ['Harbour Inn', 'Quay Cottage', 'Lighthouse Rooms']) expect(markdown).toContain(`## ${name}`);
    expect(markdown).not.toContain('Book now');
    expect(markdown).not.toMatch(/\[Map\]/);
    expect(markdown).toContain('The harbour guide');
  });
});

describe('mainContent on an article that is not in English', () => {
  const page = `<!doctype html><html><body>${navigation}<article><h1>O cais será reconstruído</h1>
    <p>${sentence('primeiro', 1)}</p><p>${sentence('segundo', 2)}</p>
    <h3>Leia também</h3><p>O porto ganha um novo mercado de peixe na ponta leste, com bancas abertas todos os dias da semana.</p></article>${footer}</body></html>`;
  const markdown = extract(page);

  it('cuts what follows a "read also" heading in another language', () => {
    expect(markdown).toContain('primeiro report number 1');
    expect(markdown).not.toContain('Leia também');
    expect(markdown).not.toContain('mercado de peixe');
  });
});

describe('mainContent on a product page with recommendation carousels', () => {
  const card = (label: string, i: number) =>
    `<li class="card"><h3>${label} lamp ${i}</h3>` +
    `<p>Brass desk lamp with a linen shade, nearly new, ships from Leeds.</p><p>£${20 + i}.00</p></li>`;
  const cards = (label: string) => [0, 1, 2, 3].map((i) => card(label, i)).join('');
  const viewed = `<section><div><h2>People who viewed this item also viewed</h2></div>
    <ul>${cards('Viewed')}</ul></section>`;
  const page = `<!doctype html><html><body>${navigation}<div class="item-page">
    <div class="summary"><h1>Harbour desk lamp</h1><p>${sentence('lamp', 1)}</p></div>
    <div class="river">${viewed}
      <div class="about"><h2>About this item</h2><p>${sentence('condition', 2)}</p></div></div>
    <div class="bottom"><div><h2>Similar items</h2><ul>${cards('Similar')}</ul></div></div>
    </div>${footer}</body></html>`;
  const markdown = extract(page);

  it('drops the carousels beside the product, and keeps what follows one set as a section', () => {
    expect(markdown).toContain('lamp report number 1');
    expect(markdown).toContain('condition report number 2');
    expect(markdown).not.toContain('Viewed lamp');
    expect(markdown).not.toContain('Similar lamp');
  });
});

describe('mainContent on a listing whose items name their parts like furniture', () => {
  const entry = (i: number) => `<dt><a href="/abs/${i}">Paper ${i}</a></dt><dd><div class="meta">
      <div class="list-title">Title: Tide gauges and the harbour quay, study ${i}</div>
      <div class="list-authors">Ann Pier, Tom Wharf and the harbour survey team</div></div></dd>`;
  const job = (i: number) => `<li class="job"><a href="/job/${i}">
      <div class="job__header"><h3>Deckhand ${i}</h3></div>
      <div class="job__meta"><span class="job__date">${i}d</span></div>
      <p>Crew wanted for the north quay, number ${i}.</p></a></li>`;
  const page = `<!doctype html><html><body>${navigation}<main><h1>Harbour listings</h1>
    <dl>${[1, 2, 3].map(entry).join('')}</dl>
    <ul class="jobs">${[1, 2, 3].map(job).join('')}</ul>
    <div class="meta">Posted by the harbour office</div></main>${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps the parts every item repeats, and drops their short bylines', () => {
    for (const i of [1, 2, 3]) {
      expect(markdown).toContain(`Tide gauges and the harbour quay, study ${i}`);
      expect(markdown).toContain(`Deckhand ${i}`);
    }
    expect(markdown).not.toMatch(/\b2d\b/);
    expect(markdown).not.toContain('Posted by the harbour office');
  });
});

describe('mainContent on a thread whose comments are each set in a form', () => {
  const text = (i: number) =>
    `Reply ${i}: I had the same problem with mine, and cleaning the fuel filter fixed it for me.`;
  const reply = (i: number) => `<div class="thing comment"><p class="tagline">sailor${i}</p>
    <form action="#" class="usertext"><input type="hidden" name="thing_id" value="t1_${i}">
    <div class="md"><p>${text(i)}</p></div></form></div>`;
  const rules = `<p>${sentence('forum rules', 1)}</p><p>${sentence('forum rules', 2)}</p>`;
  const page = `<!doctype html><html><body>${navigation}
    <div class="side"><form action="/search"><input type="text" name="q">
    <p>Search the harbour forum for older threads about engines, and read the rules first.</p>
    </form><div class="titlebox"><form action="#" class="usertext">${rules}</form></div></div>
    <div class="content" role="main">
    <p class="title"><a href="https://boats.example/outboard">My outboard stalls</a></p>
    <div class="commentarea">${[1, 2, 3, 4].map(reply).join('')}</div></div>
    ${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps comments set in forms with no field: the thread of the main region', () => {
    for (let i = 1; i <= 4; i++) expect(markdown).toContain(`Reply ${i}:`);
  });

  it('drops a form a reader fills in, and the sidebar beside the main region', () => {
    expect(markdown).not.toContain('Search the harbour forum');
    expect(markdown).not.toContain('forum rules report');
  });
});

describe('mainContent on a product page that renders its description from script data', () => {
  const ld = (description: string) =>
    `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product",` +
    `"name":"Harbour socks","description":"${description}"}</script>`;
  const details = [1, 2, 3].map((i) => `<p>${sentence('sock', i)}</p>`).join('');
  const body = `${navigation}<main><h1>Harbour socks</h1><p>€17</p>${details}</main>${footer}`;
  const page = (description: string) =>
    `<!doctype html><html><head>${ld(description)}</head><body>${body}</body></html>`;

  it('adds the description after the title when the content lacks it', () => {
    const description = 'Knitted from <b>merino</b> wool &amp; cotton, for long walks on the pier.';
    const markdown = extract(page(description));
    expect(markdown).toMatch(/# Harbour socks\s+Knitted from merino wool & cotton, for long walks/);
  });

  it('adds nothing when the content already holds the description', () => {
    const markdown = extract(page('The sock report number 2 describes how the council met again.'));
    expect(markdown.match(/sock report number 2/g)).toHaveLength(1);
  });
});

describe('mainContent on a product page whose footer holds long testimonials', () => {
  const quotes = [1, 2, 3, 4].map((i) => `<blockquote><p>${sentence('customer', i)}</p></blockquote>`);
  const page = `<!doctype html><html><body>${navigation}<div class="product">
    <h1>Harbour desk lamp</h1><p>${sentence('lamp', 1)}</p><p>${sentence('lamp', 2)}</p></div>
    <footer><h2>What our clients say</h2>${quotes.join('')}
    <p>Copyright 2024 Harbour Lamps.</p></footer></body></html>`;
  const markdown = extract(page);

  it('drops the footer however much text it holds, and keeps the product', () => {
    expect(markdown).toContain('lamp report number 2');
    expect(markdown).not.toContain('customer report');
  });
});

describe('mainContent on a product grid whose cards repeat their title and price', () => {
  const names = ['Harbour Blend', 'Quay Roast', 'Lighthouse Decaf', 'North Wall Espresso'];
  const card = (name: string, i: number) => {
    const link = `<a href="/p/${i}">${name}</a>`;
    return `<li class="grid-item"><div class="card"><div class="card-media">${link}</div>
      <h3 class="card-heading">${link}</h3><h3 class="card-heading h5">${link}</h3>
      <div class="price-regular">$1${i}.99</div><div class="price-sale">$1${i}.99</div>
      <span class="maker">Harbour</span> <span>Harbour</span></div></li>`;
  };
  const grid = `<ul class="product-grid">${names.map(card).join('')}</ul>`;
  const page = `<!doctype html><html><body>${navigation}<main><h1>Coffee</h1>${grid}</main>`;
  const markdown = extract(`${page}${footer}</body></html>`);

  it('keeps one copy of each title and price, and text repeated inside a line', () => {
    for (const [i, name] of names.entries()) {
      expect(markdown.split(name).length - 1).toBe(1);
      expect(markdown.split(`$1${i}.99`).length - 1).toBe(1);
    }
    expect(markdown).toMatch(/Harbour\s+Harbour/);
  });
});

describe('mainContent on a blog index whose posts carry their author in their class', () => {
  const post = (i: number, text: string) => `<article class="entry author-ann-pier category-news">
      <h2><a href="/news/${i}">Harbour news ${i}</a></h2>
      <div class="entry-content">${text}</div></article>`;
  const long = [1, 2, 3].map((i) => `<p>${sentence('full', i)}</p>`).join('');
  const summaries = [2, 3, 4].map((i) => post(i, `<p>${sentence('summary', i)}</p>`)).join('');
  const page = `<!doctype html><html><body>${navigation}<section class="blog-list">
    ${post(1, long)}${summaries}</section>${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps every post: an article is content by its tag, whatever its class words say', () => {
    for (const i of [1, 2, 3, 4]) expect(markdown).toContain(`Harbour news ${i}`);
    expect(markdown).toContain('summary report number 4');
  });
});

describe('mainContent on a service page whose questions are buttons in headings', () => {
  const faq = [1, 2, 3]
    .map(
      (i) => `<h3><button aria-expanded="true">Question ${i}: how long?</button></h3>
      <div><p>${sentence('answer', i)}</p></div>`,
    )
    .join('');
  const page = `<!doctype html><html><body>${navigation}<main><h1>Quay repairs</h1>
    <p>${sentence('service', 1)}</p><h2>Common questions</h2>${faq}
    <p><button type="button">Load more questions</button></p></main>${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps the text of a button set in a heading: it is the heading', () => {
    for (let i = 1; i <= 3; i++) expect(markdown).toContain(`Question ${i}: how long?`);
    expect(markdown).toContain('answer report number 3');
  });

  it('still drops a button outside a heading', () => {
    expect(markdown).not.toContain('Load more questions');
  });
});

describe('mainContent on a service page whose answers are collapsed', () => {
  const faq = [1, 2, 3]
    .map(
      (i) => `<h3 aria-expanded="false" aria-controls="answer-${i}">Question ${i}?</h3>
      <div id="answer-${i}" aria-hidden="true"><p>${sentence('answer', i)}</p></div>`,
    )
    .join('');
  const page = `<!doctype html><html><body>${navigation}
    <a href="/m" aria-haspopup="true" aria-expanded="false" aria-controls="menu">More</a>
    <div id="menu" hidden><p>${sentence('menu', 1)}</p></div>
    <main><h1>Quay repairs</h1><p>${sentence('service', 1)}</p>${faq}
    <div aria-hidden="true"><p>${sentence('hidden', 1)}</p></div></main>${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps the hidden panels that a collapsed question opens', () => {
    for (let i = 1; i <= 3; i++) expect(markdown).toContain(`answer report number ${i}`);
  });

  it('still drops a hidden block no question opens, and a popup menu', () => {
    expect(markdown).not.toContain('hidden report');
    expect(markdown).not.toContain('menu report');
  });
});

describe('mainContent on a product page with no product metadata', () => {
  const reviews = [1, 2, 3].map((i) => `<div class="review"><p>${sentence('buyer', i)}</p></div>`);
  const page = `<!doctype html><html><body>${navigation}<div class="product">
    <h1>Harbour desk lamp</h1><p>£24.00</p><form><button id="add-to-cart-button">Add to cart</button></form>
    <p>${sentence('lamp', 1)}</p><p>${sentence('lamp', 2)}</p>
    <div id="customer-reviews"><h2>Customer reviews</h2>${reviews.join('')}</div></div>${footer}</body></html>`;
  const markdown = extract(page);

  it('reads an add-to-cart control as the sign of a product page, and drops its reviews', () => {
    expect(markdown).toContain('lamp report number 2');
    expect(markdown).not.toContain('buyer report');
  });
});

describe('mainContent on a shop collection with long category text', () => {
  const names = ['Harbour Blend', 'Quay Roast', 'Lighthouse Decaf', 'North Wall Espresso'];
  names.push('Pier Mocha', 'Tide Filter', 'Ferry Light', 'Dock Dark');
  const card = (name: string, i: number) =>
    `<li class="grid-item"><a href="/p/${i}">${name}, whole beans, 1 kg</a><p>$1${i}.50</p></li>`;
  const grid = `<ul class="product-grid">${names.map(card).join('')}</ul>`;
  const paragraphs = [1, 2, 3, 4, 5].map((i) => `<p>${sentence('coffee', i)}</p>`);
  const text = `<div class="category-text">${paragraphs.join('')}</div>`;
  const page = (head: string, content: string) =>
    `<!doctype html><html>${head}<body>${navigation}<main>${content}</main>${footer}</body></html>`;

  it('keeps the product grid beside the text, which outweighs it', () => {
    const markdown = extract(page('', `<h1>Coffee</h1>${grid}${text}`));
    for (const name of names) expect(markdown).toContain(name);
    expect(markdown).toContain('$17.50');
    expect(markdown).toContain('coffee report number 1');
  });

  it('drops a grid announced as extras on a product page', () => {
    const more = `<section class="more"><h2>More like this</h2>${grid}</section>`;
    const markdown = extract(page('', `<h1>Harbour Blend</h1>${text}${more}`));
    expect(markdown).toContain('coffee report number 1');
    expect(markdown).not.toContain('Tide Filter');
  });

  it('drops a grid of priced items on a page that declares itself an article', () => {
    const head = '<head><meta property="og:type" content="article"></head>';
    const markdown = extract(page(head, `<h1>Coffee</h1>${grid}${text}`));
    expect(markdown).toContain('coffee report number 1');
    expect(markdown).not.toContain('Tide Filter');
  });
});

describe('mainContent on a product with a short description and many reviews', () => {
  const reviews = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `<li><p>${sentence('buyer', i)}</p></li>`);
  const ld = '<script type="application/ld+json">{"@type":"Product","name":"Lamp"}</script>';
  const description = `<p>A brass lamp with a linen shade, for desks by the sea. Its arm turns
    and tilts, and its base is heavy enough to stay put on a boat. Made in Leeds.</p>`;
  const page = `<!doctype html><html><head>${ld}</head><body>${navigation}<div class="product">
    <h1>Harbour desk lamp</h1><p>£24.00</p>${description}</div>
    <div class="product-reviews"><h2>Reviews</h2><ul>${reviews.join('')}</ul></div>
    ${footer}</body></html>`;
  const markdown = extract(page);

  it('drops the reviews: a few lines of description stand without them', () => {
    expect(markdown).toContain('A brass lamp with a linen shade');
    expect(markdown).not.toContain('buyer report');
  });
});

describe('mainContent on a product page with option pickers outside a form', () => {
  const picker = (name: string) =>
    `<div class="picker"><label for="${name}">${name}</label><select id="${name}"></select></div>`;
  const text = `<p>${sentence('blend', 1)}</p><p>${sentence('roast', 2)}</p>`;
  const page = `<!doctype html><html><body>${navigation}<main><h1>Harbour Blend</h1>
    ${text}${picker('Grind')}${picker('Quantity')}</main>`;
  const markdown = extract(`${page}${footer}</body></html>`);

  it('drops the labels of form controls with the controls', () => {
    expect(markdown).toContain('blend report number 1');
    expect(markdown).not.toContain('Grind');
    expect(markdown).not.toContain('Quantity');
  });
});

describe('mainContent on a page with a FAQ whose answers are folded', () => {
  const answer = (i: number) =>
    `The quay opens at dawn on day ${i}, and the harbour master, who keeps the keys, lets boats ` +
    'out one by one, in the order they came in.';
  const faq = [1, 2, 3]
    .map(
      (i) => `<div class="faq__question">When does the quay open on day ${i}?</div>
      <div class="faq__answer" style="display: none;"><p>${answer(i)}</p></div>`,
    )
    .join('');
  const boats = ['Dinghies', 'Trawlers', 'Ferries', 'Yachts', 'Tugs', 'Lifeboats', 'Barges'];
  const links = boats.map((s) => `<a href="/${s}">${s} for sale and for hire</a>`).join(' ');
  const menu = `<div><a class="menu-toggle" href="/boats">Boats</a>
    <div class="menu-panel" style="display:none">${links}</div></div>`;
  const tooltip = `<p><span>Shipping weight</span><span class="tooltip" style="display:none">
    The weight includes the packaging, the box and the filler, and may be adjusted for the size of
    the parcel.</span></p>`;
  const page = `<!doctype html><html><body>${navigation}<main><h1>Visiting the harbour</h1>
    <p>${sentence('visit', 1)}</p>${menu}${tooltip}<div class="faq">${faq}</div></main>
    ${footer}</body></html>`;
  const markdown = extract(page);

  it('keeps the answers a reader opens, and drops a folded menu and a tooltip', () => {
    for (const i of [1, 2, 3]) expect(markdown).toContain(answer(i));
    expect(markdown).not.toContain('Trawlers for sale');
    expect(markdown).not.toContain('adjusted for the size');
  });
});

describe('mainContent on a service page with a marquee', () => {
  const ticker = Array.from({ length: 8 }, () => '<span>Book now <span>*</span></span>').join('');
  const steps = ['Survey', 'Design', 'Build', 'Inspect'].map((s) => `<li>${s}</li>`).join('');
  const page = `<!doctype html><html><body>${navigation}<main><h1>Quay repairs</h1>
    <p>${sentence('service', 1)}</p><div class="ticker">${ticker}</div>
    <p>${sentence('service', 2)}</p><ul>${steps}</ul>
    <p>We <b>build</b>, we <b>build</b>, we <b>build</b> and <b>build</b> for every harbour.</p>
    </main>${footer}</body></html>`;
  const markdown = extract(page);

  it('drops a block whose children all repeat one text', () => {
    expect(markdown).not.toContain('Book now');
    expect(markdown).toContain('service report number 2');
  });

  it('keeps a list of different short entries, and a sentence around like words', () => {
    expect(markdown).toContain('- Inspect');
    expect(markdown).toContain('we **build** and **build** for every harbour');
  });
});
