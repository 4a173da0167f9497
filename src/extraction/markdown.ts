import { gfm } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';

/**
 * HTML to Markdown: GFM tables, strikethrough and task lists, fenced code with the language
 * taken from the code element's class, ATX headings. One converter per process, since
 * building the rule set costs more than most conversions.
 */

let service: TurndownService | undefined;

function converter(): TurndownService {
  if (service) return service;
  service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  service.use(gfm);
  // Turndown pads list markers to four columns; CommonMark needs only the marker's width,
  // which keeps nested lists readable and their indentation consistent.
  service.addRule('listItem', {
    filter: 'li',
    replacement(content, node, options) {
      const parent = node.parentNode as Element | null;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1');
        prefix = `${(Number.isFinite(start) ? start : 1) + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'button', 'select', 'input', 'textarea']);
  return service;
}

export function toMarkdown(root: Node): string {
  return converter()
    .turndown(root as unknown as TurndownService.Node)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
