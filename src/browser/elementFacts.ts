import type { ElementHandle, Frame, Locator, Page } from 'playwright-core';
import type { FieldFacts } from '../operations/automate';

/** What the firewall is told about an element before the agent acts on it. */
export interface ElementFacts {
  field: FieldFacts;
  /** The form a click on the element (or Enter in it) would submit, if any, as it would be sent. */
  submits?: { method: 'get' | 'post'; action: string };
  /** The address a click on the element would open: the link it is in. */
  opens?: string;
  /**
   * The origin of the element's own document (its frame's, not the top page's), `null` when
   * opaque, and that document's URL: the page the element's values go to.
   */
  origin: string;
  documentUrl: string;
}

/** What the element's own document says of it; where that document comes from, the browser tells. */
type DomFacts = Omit<ElementFacts, 'origin' | 'documentUrl'>;

/**
 * Runs in the page, so it must hold all it uses. A form's named controls shadow its own
 * properties (`<input name="action">` is `form.action`), so its attributes are read through the
 * prototypes instead.
 */
function inspect(element: Element, gesture: 'click' | 'enter' | 'none'): DomFacts {
  // Names, labels and placeholders are read up to 200 characters, as the classifier reads them:
  // a page's 150,000-character placeholder is not carried, or classified, whole. Addresses
  // (`action`, `href`) are whole, as Chromium bounds them: the firewall checks all of them.
  const attribute = (el: Element, name: string, max = 200): string | undefined =>
    Element.prototype.getAttribute.call(el, name)?.slice(0, max) ?? undefined;
  const text = (value: string | null | undefined): string =>
    (value ?? '').slice(0, 2_000).replace(/\s+/g, ' ').trim().slice(0, 200);
  // A label's words without those of the controls it wraps (a select's options).
  const ownText = (node: Node): string =>
    Array.from(node.childNodes, (child): string => {
      if (child.nodeType === Node.TEXT_NODE) return child.textContent ?? '';
      if (child.nodeType !== Node.ELEMENT_NODE) return '';
      return (child as Element).matches('select, textarea, input, button, option, datalist, script, style')
        ? ''
        : ` ${ownText(child)}`;
    }).join('');
  const labelOf = (el: Element): string | undefined => {
    const labelledBy = attribute(el, 'aria-labelledby');
    if (labelledBy) {
      const joined = labelledBy
        .split(/\s+/)
        .map((id) => text(el.ownerDocument.getElementById(id)?.textContent))
        .filter(Boolean)
        .join(' ');
      if (joined) return joined;
    }
    const ariaLabel = text(attribute(el, 'aria-label'));
    if (ariaLabel) return ariaLabel;
    const labels = (el as HTMLInputElement).labels;
    if (labels && labels.length > 0) {
      const joined = Array.from(labels, (label) => text(ownText(label)))
        .filter(Boolean)
        .join(' ');
      if (joined) return joined;
    }
    return text(attribute(el, 'title')) || undefined;
  };
  const formOf = (el: Element): HTMLFormElement | null => {
    const owner = (el as HTMLInputElement).form;
    return owner instanceof HTMLFormElement ? owner : el.closest('form');
  };
  const formFacts = (form: HTMLFormElement, submitter?: Element) => {
    const method = (
      (submitter && attribute(submitter, 'formmethod')) ||
      attribute(form, 'method') ||
      'get'
    ).toLowerCase();
    const action =
      (submitter && attribute(submitter, 'formaction', Infinity)) ?? attribute(form, 'action', Infinity) ?? '';
    return {
      method: method === 'post' ? ('post' as const) : method === 'dialog' ? ('dialog' as const) : ('get' as const),
      action: new URL(action, element.ownerDocument.baseURI).href,
    };
  };
  const tag = element.tagName.toLowerCase();
  const type = tag === 'input' ? (attribute(element, 'type') ?? 'text').toLowerCase() : undefined;
  const form = formOf(element);
  const field: FieldFacts = {
    tag,
    type,
    autocomplete: attribute(element, 'autocomplete')?.toLowerCase(),
    name: attribute(element, 'name'),
    id: attribute(element, 'id'),
    label: labelOf(element),
    placeholder: attribute(element, 'placeholder'),
  };
  if (form) {
    const { method, action } = formFacts(form);
    if (method !== 'dialog') field.form = { method, action };
  }
  let submitter: Element | null = null;
  let opens: string | undefined;
  if (gesture === 'click') {
    const link = element.closest('a[href], area[href]');
    if (link) opens = (link as HTMLAnchorElement).href;
    const control = element.closest('button, input');
    const controlType = control && (attribute(control, 'type') ?? '').toLowerCase();
    if (control?.tagName === 'BUTTON' && (controlType === '' || controlType === 'submit')) submitter = control;
    if (control?.tagName === 'INPUT' && (controlType === 'submit' || controlType === 'image')) submitter = control;
  } else if (gesture === 'enter' && (tag === 'input' || tag === 'button')) {
    // Enter in a field submits its form through the form's first submit button (implicit submission).
    submitter =
      tag === 'button'
        ? element
        : (form?.querySelector(
            'button:not([type]), button[type="submit"], input[type="submit"], input[type="image"]',
          ) ?? element);
  }
  const submittedForm = submitter && formOf(submitter);
  if (submitter && submittedForm) {
    const { method, action } = formFacts(
      submittedForm,
      submitter === element && tag === 'input' ? undefined : submitter,
    );
    if (method !== 'dialog') return { field, submits: { method, action }, opens };
  }
  return { field, opens };
}

/**
 * Where the element's document comes from, from the browser's frame tree: the page's scripts run
 * where `inspect` does and could claim any origin there (`self.origin` is replaceable). A frame
 * showing about:blank or about:srcdoc has its parent's origin; any other non-web document
 * (`data:`) has an opaque one.
 */
function documentOf(frame: Frame | null): Pick<ElementFacts, 'origin' | 'documentUrl'> {
  const documentUrl = frame?.url() ?? '';
  let creator = frame;
  while (creator && !/^https?:/i.test(creator.url())) {
    if (!/^about:(blank|srcdoc)$/i.test(creator.url())) return { origin: 'null', documentUrl };
    creator = creator.parentFrame();
  }
  return { origin: creator ? new URL(creator.url()).origin : 'null', documentUrl };
}

async function factsOf(element: ElementHandle<Node>, gesture: 'click' | 'enter' | 'none'): Promise<ElementFacts> {
  const facts = await element.evaluate(inspect, gesture);
  return { ...facts, ...documentOf(await element.ownerFrame()) };
}

/** The facts of the element `locator` points to, for the firewall; `gesture` is what the agent is about to do. */
export async function elementFacts(
  locator: Locator,
  gesture: 'click' | 'enter' | 'none',
  timeout: number,
): Promise<ElementFacts> {
  const element = await locator.elementHandle({ timeout });
  try {
    return await factsOf(element, gesture);
  } finally {
    await element.dispose();
  }
}

/** How many frames deep the focus is followed: deeper nesting is a page's trick, not a form. */
const MAX_FRAME_DEPTH = 8;

/**
 * The same for the element that has the focus (a key press without a ref). A frame's document
 * shows the frame element as its active element, so the focus is followed into frames.
 */
export async function focusedFacts(page: Page, gesture: 'enter' | 'none'): Promise<ElementFacts | undefined> {
  let frame: Frame = page.mainFrame();
  for (let depth = 0; depth <= MAX_FRAME_DEPTH; depth++) {
    const focused = await frame.evaluateHandle(() => document.activeElement);
    try {
      const element = focused.asElement();
      if (!element) return undefined;
      const inner = await element.contentFrame();
      if (!inner) return await factsOf(element, gesture);
      frame = inner;
    } finally {
      await focused.dispose();
    }
  }
  return undefined;
}

/**
 * Identifies a form across the steps of a session: its page, method and action, without
 * fragments, which a submission's request does not carry.
 */
export function formKey(pageUrl: string, form: { method: string; action: string }): string {
  const bare = (url: string) => url.replace(/#.*$/s, '');
  return `${bare(pageUrl)} ${form.method} ${bare(form.action)}`;
}
