import { strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import { addFootnoteRules } from './footnotes';
import { addCodeBlockRules } from './markdownRules/codeBlocks';
import { addDefinitionListRules } from './markdownRules/definitionLists';
import { addFigureRules } from './markdownRules/figures';
import { addTableRules } from './markdownRules/tables';

/**
 * HTML to Markdown: ATX headings, GFM tables, strikethrough, task lists and footnotes, fenced
 * code with its language, figure captions and definition lists (each set of rules in
 * `markdownRules/`, footnotes in `footnotes.ts`). One converter per process, since building the
 * rule set costs more than most conversions.
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
  service.use([strikethrough, taskListItems]);
  addTableRules(service);
  addCodeBlockRules(service);
  addFigureRules(service);
  addDefinitionListRules(service);
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
        .replace(/(?<!\n)\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  // After the list item rule: a note is often a list item, and the later rule is tried first.
  addFootnoteRules(service);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'button', 'select', 'input', 'textarea']);
  return service;
}

export function toMarkdown(root: Node): string {
  return (
    converter()
      .turndown(root as unknown as TurndownService.Node)
      // A lone trailing space is left over from removed inline elements; two are a hard break.
      .replace(/(?<! ) $/gm, '')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}
