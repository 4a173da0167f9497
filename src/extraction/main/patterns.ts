import { forwardSearch } from '../../text/scan';
/**
 * Tuning constants and patterns of the main-content extractor, in one place so the stages read
 * as rules and the numbers can be tuned against the benchmarks (`npm run bench:extraction`).
 */

/**
 * Elements that never hold the page's own content, whatever their size. A form control's label
 * ("Size", "Quantity", a filter's "Black (12)") names a control that goes with it.
 */
export const NEVER_CONTENT_TAGS = new Set([
  ...['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'],
  ...['BUTTON', 'SELECT', 'INPUT', 'TEXTAREA', 'OPTION', 'LABEL'],
  ...['SVG', 'IFRAME', 'DIALOG', 'MENU', 'OBJECT', 'EMBED', 'CANVAS'],
]);

/** Page furniture by tag: removed unless it holds most of the page (a site that wraps everything in one). */
export const FURNITURE_TAGS = new Set(['NAV', 'ASIDE', 'FOOTER', 'HEADER', 'FORM']);

/** ARIA roles of page furniture. */
export const FURNITURE_ROLES =
  /^(navigation|banner|contentinfo|complementary|search|dialog|alertdialog|menu|menubar|toolbar|tablist)$/i;

/** ARIA roles of a dialog over the page: furniture whatever its size. */
export const MODAL_ROLES = /^(dialog|alertdialog)$/i;

/**
 * class/id words of blocks that are not the content: matched at the start of a word (so
 * `shareButtons`, `related-posts`, `newsletterSignup` all match), words split on space, `-`, `_`.
 * A forum post's `signature` (the poster's motto, links and user card under every post) and
 * the poster's `user-extras`/`user-stats`/`postprofile` (joined, messages, reaction score)
 * are the poster's, not the thread's.
 */
export const BOILERPLATE_NAMES =
  /(^|[\s_-])(share|sharing|signature|user-?extras|user-?stats|postprofile|sharedaddy|social|related|recommend|newsletter|subscribe|cookie|consent|gdpr|advert|sponsor|breadcrumb|sidebar|popup|modal|overlay|paywall|outbrain|taboola|trending|mostpopular|most-popular|signup|sign-up|login|sr-only|screen-?reader|visually-?hidden|byline|author-?(bio|box|info)|about-?the-?author|post-?meta|entry-?meta|article-?meta|tag-?(list|cloud|links)|cat-?links|pagination|pager|next-?post|prev-?post|post-?nav|navbar|navigation|more-?(stories|articles|news)|you-?may|also-?like|jump-?to)/i;

/**
 * Boilerplate names of overlays and their kin (cookie dialogs, pop-ups, sign-up boxes): beside a
 * page's <main> such a block is furniture however much text it holds; other boilerplate names
 * are sometimes given to a region of the content itself.
 */
export const OVERLAY_NAMES =
  /(^|[\s_-])(cookie|consent|gdpr|popup|modal|overlay|newsletter|subscribe|paywall|signup|sign-up|login)/i;

/**
 * Cookie and consent banners, named by the consent managers in wide use (OneTrust, Cookiebot,
 * Didomi, Quantcast, Usercentrics) or as such: dropped whatever their size, since a preference
 * centre's purpose texts can outweigh a short forum thread or product page. Matched at the start
 * of a class token only: `has-cookie-banner` on a page wrapper names the page's state.
 */
export const CONSENT_NAMES =
  /(^|\s)(onetrust|ot-sdk|cybotcookiebot|cookiebot|didomi|qc-cmp|usercentrics|truste|cookie-?(banner|notice|consent|bar|popup|law|wall|dialog|modal|settings|preferences)|consent-?(banner|manager|sdk|popup|modal|dialog|bar|wrapper)|gdpr-?(banner|notice|consent))/i;

/** Any of `words` as a whole word of a class or id, words split on space, `-` and `_`. */
function wholeWords(words: string): RegExp {
  return new RegExp(`(^|[\\s_-])(${words})($|[\\s_-])`, 'i');
}

/**
 * Whole class/id words of boilerplate that would match too much as prefixes (`ad` in `address`,
 * `header` in `header-title`), in three kinds. What a block is: a menu, a toolbar, a notice.
 */
export const FURNITURE_WORDS = wholeWords('hashtags?|crumbs?|notice|menu|nav|print|promo|disclaimer|copyright|toolbar');
/**
 * The slots a page's template fills: its header, footer, banner, category bar, ad slots. Every
 * item of a list may have the same slots (its head, its foot, its tags, a slot a grid fills
 * with stories): there they are the item's own.
 */
export const SLOT_WORDS = wholeWords('header|footer|banner|masthead|categories|ad|ads|adslot|dfp');
/** What describes an item or a page: its byline, metadata rather than text. */
export const BYLINE_WORDS = wholeWords('meta|date|time|author|reactions|updated|posted-?on|timestamp|dateline');
/** ... unless the block so named holds this share of its item's text: then it is its body. */
export const ITEM_BODY_SHARE = 0.5;

/**
 * Class names that hide an element by style sheet. Whole class tokens only: `field--label-hidden`
 * (on every Drupal field) and `overflow-hidden` name something else.
 */
export const HIDDEN_CLASSES = /^(hidden|hide|d-none|is-hidden|invisible)$/i;
/** ... unless a responsive class shows it again on a wide screen (`hidden md:block`, `d-none d-lg-flex`). */
export const SHOWN_WIDE_CLASSES =
  /^((sm|md|lg|xl|2xl):(block|flex|grid|inline|inline-block|inline-flex|table|contents)|d-(sm|md|lg|xl|xxl)-(block|flex|grid|inline|inline-block|inline-flex|table))$/i;
/**
 * Class names that hide an element on a wide screen, where pages are read as a desktop browser
 * shows them: the mobile copy of a menu or a section (`lg:hidden`, `d-lg-none`, `hidden-desktop`,
 * `visible-xs`, `mobile-only`).
 */
export const HIDDEN_WIDE_CLASSES =
  /^((md|lg|xl):hidden|d-(md|lg|xl)-none|visible-(xs|sm)|(.*[-_])?(hidden|hide)[-_](desktop|lg|md)|(.*[-_])?(mobile|phone)[-_]only|(show|visible)[-_](mobile|phone))$/i;

/** class/id words of the content itself: a block named so is kept though it matches a boilerplate word too. */
export const CONTENT_NAMES =
  /(^|[\s_-])(article-?body|articlebody|post-?body|post-?content|entry-?content|story-?body|main-?content|page-?content|rich-?text|richtext|prose|markdown|body-?text|article-?content|content-?body|text-?content)($|[\s_-])/i;

/**
 * Names sites give the body of an article (not a forum post: `post-content` also marks each
 * post of a thread). A page that marks its own text so, outside its comments, is an article
 * whose comments are extras, however long the discussion under it.
 */
export const ARTICLE_BODY_NAMES =
  /(^|[\s_-])(article-?body|articlebody|entry-?content|story-?body|article-?content)($|[\s_-])/i;

/** Reader comments: dropped from a page whose own text stands without them, kept on forums where they are the page. */
export const COMMENT_NAMES =
  /(^|[\s_-])(comments?|commentlist|comment-?list|comments-?area|respond|disqus|discussion|replies)($|[\s_-])/i;

/**
 * Customers' reviews on a product page (named `reviews` or by the review widgets shops embed:
 * Judge.me, Yotpo, Stamped, Okendo, Bazaarvoice) are its comments: the product's description
 * and specifications are the content. Only there: a service page's `reviews-section` of quoted
 * clients is its content, and a review article is named `review`.
 */
export const REVIEW_NAMES = /(^|[\s_-])(reviews|jdgm|yotpo|stamped|okendo|bv)($|[\s_-])/i;

/** class, id or name words of a control adding a product to the cart (`add-to-cart`, `addToBag`). */
export const ADD_TO_CART = /add[-_]?to[-_]?(cart|bag|basket)/i;
/** A page with one to this many such controls sells one product: a listing has one per item. */
export const MAX_CART_CONTROLS = 4;

/**
 * schema.org types of a discussion (a forum thread, a question with its answers), in JSON-LD
 * (`"@type": "DiscussionForumPosting"`) or microdata (`itemtype=".../QAPage"`): on such a page
 * the replies are the content, whatever they are named.
 */
export function declaresDiscussion(jsonLd: string): boolean {
  // By hand, as `/"@type"\s*:\s*(\[[^\]]*)?"(https?:\/\/schema\.org\/)?(DiscussionForumPosting|QAPage)"/`
  // read it: that pattern scanned to the next `]` again from each `"@type": [`.
  const key = /"@type"\s*:\s*/g;
  const type = /"(?:https?:\/\/schema\.org\/)?(?:DiscussionForumPosting|QAPage)"/g;
  const arrayEnd = forwardSearch(jsonLd, (char) => char === ']');
  let typeFrom = -1;
  let typeAt = -1;
  const nextType = (from: number): number => {
    if (from >= typeFrom && from <= typeAt) return typeAt;
    type.lastIndex = from;
    typeFrom = from;
    typeAt = type.exec(jsonLd)?.index ?? jsonLd.length;
    return typeAt;
  };
  for (const found of jsonLd.matchAll(key)) {
    const value = found.index + found[0].length;
    if (jsonLd[value] === '"' && nextType(value) === value) return true;
    if (jsonLd[value] === '[' && nextType(value + 1) < arrayEnd(value + 1)) return true;
  }
  return false;
}
export const DISCUSSION_ITEMTYPE = /schema\.org\/(DiscussionForumPosting|QAPage)/;
/**
 * schema.org types of an article or a post, in JSON-LD or microdata: such a page is read as one,
 * and a grid of priced items on it is a shopping aside, not the page.
 */
const ARTICLE_TYPES = [
  'Article',
  'NewsArticle',
  'BlogPosting',
  'ReportageNews',
  'AnalysisNewsArticle',
  'OpinionNewsArticle',
  'TechArticle',
  'ScholarlyArticle',
  'LiveBlogPosting',
].join('|');
const JSON_LD_TYPE = '"@type"\\s*:\\s*(\\[[^\\]]*)?"(https?://schema\\.org/)?';
export const ARTICLE_JSON_LD = new RegExp(`${JSON_LD_TYPE}(${ARTICLE_TYPES})"`);
export const ARTICLE_ITEMTYPE = new RegExp(`schema\\.org/(${ARTICLE_TYPES})$`);
/** ... where a comment-named block holding this share of the page is the thread, not comments on it. */
export const THREAD_SHARE = 0.5;

/** Once comments are gone, at least this share of the content must remain for them to go... */
export const OWN_CONTENT_SHARE = 0.3;
/** ... or this much prose (a short news story under a long thread of top comments). */
export const OWN_CONTENT_MIN = 800;
/** ... or, on a product page, this much: a product's short description is its page. */
export const OWN_PRODUCT_MIN = 150;

/** A furniture or boilerplate-named block holding more than this share of the page's content is kept. */
export const MAX_FURNITURE_SHARE = 0.2;

/** A furniture-named block whose text is at least this much one blockquote is a quotation, and kept. */
export const QUOTATION_SHARE = 0.8;

/** Weight of any text, links included, beside prose when locating the content (see `contentOf`). */
export const TEXT_WEIGHT = 0.15;

/** Descend into a child while it holds at least this share of its parent's content. */
export const DOMINANCE = 0.75;

/** ... on a discussion page, where the replies beside a short question are still not the whole page. */
export const DISCUSSION_DOMINANCE = 0.9;

/** A semantic region (article, main, articleBody) must hold this share of the page's content to be taken. */
export const SEMANTIC_SHARE = 0.3;

/** Blocks whose text is mostly link text are menus and link lists. */
export const MAX_LINK_DENSITY = 0.5;
/** ... and are dropped from the chosen content when they are smaller than this share of it. */
export const LINK_LIST_SHARE = 0.25;

/**
 * A block with at least this many siblings of its tag and class is a list's entry, kept however many
 * links it holds.
 */
export const MIN_LIKE_ITEMS = 3;
/** How many other blocks (ads, dividers) may stand between two like items of a list. */
export const LIKE_SIBLING_REACH = 3;
/** Tags that make an entry of a list even without a class (a bare <p> or <div> does not). */
export const LIST_ITEM_TAGS = new Set(['LI', 'ARTICLE', 'TR', 'DT', 'DD']);

/**
 * Headings that announce extras rather than content ("Related articles", "Top rated comments",
 * "You may also like"): what follows them in their container goes too, when the content stands
 * without it.
 */
export const EXTRAS_HEADINGS =
  /^(\W*(?:\d+\s*)?(top |most |latest |recent |reader |user )?(rated |recent )?(comments?|responses?|replies|reactions)\b|related\b|read (more|next|also)\b|more (from|on|in|stories|articles|news|like this)\b|recommended\b|you (may|might|will) (also )?(like|enjoy|be interested)|popular\b|trending\b|share (this|the)\b|follow us\b|tags?:?$|leave a (reply|comment)|post a comment|join the (conversation|discussion)|about the author|see also$|also read\b|latest (news|stories|articles|posts)|recent posts|most (read|popular|viewed|shared)\b|sponsored\b|advertisement\b|newsletter\b|sign up\b|subscribe\b|don't miss\b|further reading)/i;
/**
 * Headings of a shop's recommendation carousels beside its product ("Similar items", "People who
 * viewed this item also viewed", "Customers also bought", "Shop the look"): other products.
 */
export const RECOMMENDATION_HEADINGS = new RegExp(
  '^\\W*(similar (items|products)\\b|explore related\\b|frequently bought together|' +
    'recently viewed\\b|' +
    '(people|customers|others)( like you)? (who )?(also )?(viewed|bought|purchased)\\b|' +
    '(get|shop|complete) the look\\b)',
  'i',
);
/**
 * The same headings in the languages most often met besides English (Portuguese, Spanish, French,
 * German, Italian, Russian).
 */
export const EXTRAS_HEADINGS_OTHER_LANGUAGES =
  /^(\W*(comentários|comentarios|commentaires|kommentare|commenti|комментари|отзывы|veja também|leia também|lee también|lire aussi|leggi anche|lesen sie auch|читайте также|смотрите также|você pode gostar|te puede interesar|vous aimerez|das könnte sie|potrebbe interessarti|mais lidas|más leídas|les plus lus|meistgelesen|più letti|самые популярные|популярные|похожие|notícias relacionadas|artigos relacionados|noticias relacionadas|artículos relacionados|articles similaires|articoli correlati|ähnliche artikel))/i;
/** Share of the content that may follow such a heading and still be cut. */
export const EXTRAS_TAIL_SHARE = 0.5;

/** Text blocks shorter than this, alone at the end of the content, are credits and labels. */
export const MIN_BLOCK_CHARS = 25;

/**
 * One class or id token of an image caption or a photo credit (`caption`, `wp-caption-text`,
 * `image-credit`, `caption-full`). Not a type style (`caption-large`, `text-caption`) nor a
 * screen-reader text (`rating__caption-sr`): those name how text looks, not what it is.
 */
export const CAPTION_TOKEN =
  /(^|[_-])(caption|credit)s?($|[_-](?!(xs|s|m|l|xl|sm|md|lg|small|medium|large|sr)($|[_-])))/i;
/** ... or a camelCase word of one (`newsCaption`, `imageCredit`, `leadMediaCaption`). */
export const CAPTION_CAMEL_TOKEN = /[a-z](Caption|Credit)s?($|[A-Z_-])/;
/** A type style's token (`text-caption`, `typography-card-caption`): it says how text looks. */
export const TYPE_STYLE_TOKEN = /(^|[_-])(text|typography)[_-]/i;

/**
 * A paragraph whose text is at least this much one link is a pointer to another story ("READ
 * MORE: ...", a related headline set as a paragraph), not a paragraph of this one.
 */
export const PROMO_LINK_DENSITY = 0.8;
/** ... when it sits in the text column: a parent holding at least this share of the content. */
export const TEXT_COLUMN_SHARE = 0.5;

/**
 * A block that is one short link (at most this many characters, this much of it link text) and
 * whose text recurs in another such block is a control repeated on every item ("Book now",
 * "Map", "Check price at Amazon", "Read the review"), not content.
 */
export const LABEL_MAX_CHARS = 40;
export const LABEL_LINK_DENSITY = 0.9;

/** A text up to this long that a product card repeats is a copy for another screen width. */
export const REPEAT_MAX_CHARS = 200;
/** A card shows one price (and its sale price); more make a price list, whose rows may match. */
export const CARD_MAX_PRICES = 2;
/** A block whose children all show one text (this long at most) this many times: a marquee. */
export const MARQUEE_COPIES = 4;
export const MARQUEE_MAX_CHARS = 80;

/**
 * An article that holds the page's headline and no other article is the page's own when it holds
 * at least this share of the prose: related posts set as articles after it can outweigh a short post.
 */
export const TITLED_ARTICLE_SHARE = 0.2;

/**
 * A product's schema.org description is in the content when this share of its words is: else
 * the region chosen missed it, and it is added.
 */
export const DESCRIPTION_PRESENT_SHARE = 0.5;
