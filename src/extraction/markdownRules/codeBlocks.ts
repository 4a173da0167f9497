import type TurndownService from 'turndown';

/**
 * Fenced code blocks for every `<pre>`, with the language wherever highlighters and CMSs write
 * it: `language-x`/`lang-x` classes (Prism, highlight.js, Markdown renderers), `highlight-x` and
 * `highlight-source-x` (Pygments, GitHub), `brush: x` (SyntaxHighlighter), or `data-lang`.
 * Highlighters split code into spans; the block's text content is the code exactly.
 */

const LANGUAGE_IN_CLASS = [
  /(?:^|\s)lang(?:uage)?-([\w+#.-]+)/i,
  /(?:^|\s)highlight-(?:source-)?([\w+#.-]+)/i,
  /brush:\s*([\w+#.-]+)/i,
];

function languageOf(pre: Element): string {
  const code = pre.querySelector('code');
  for (const el of [code, pre, pre.parentElement]) {
    if (!el) continue;
    const attribute = el.getAttribute('data-lang') ?? el.getAttribute('data-language');
    if (attribute?.trim()) return attribute.trim().split(/\s+/)[0]!;
    const className = el.getAttribute('class') ?? '';
    for (const pattern of LANGUAGE_IN_CLASS) {
      const match = pattern.exec(className);
      if (match) return match[1]!.toLowerCase();
    }
  }
  return '';
}

/**
 * The code as written: text content, with `<br>` (some highlighters break lines so) as a newline,
 * and without the one newline right after `<pre>` that HTML parsers drop and linkedom keeps.
 */
function codeText(pre: Element): string {
  let text = '';
  const walk = (node: Node): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) text += (child as Text).data;
      else if (child.nodeName === 'BR') text += '\n';
      else walk(child);
    }
  };
  walk(pre);
  return text.replace(/^\n/, '').replace(/\n$/, '');
}

/** A fence longer than any backtick fence inside the code, so the code cannot close it. */
function fenceFor(code: string): string {
  let longest = 2;
  for (const match of code.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, match[1]!.length);
  return '`'.repeat(longest + 1);
}

export function addCodeBlockRules(service: TurndownService): void {
  service.addRule('codeBlock', {
    filter: 'pre',
    replacement(_content, node) {
      const pre = node as Element;
      const code = codeText(pre);
      if (!code.trim()) return '';
      const fence = fenceFor(code);
      return `\n\n${fence}${languageOf(pre)}\n${code}\n${fence}\n\n`;
    },
  });
}
