import type TurndownService from 'turndown';
import { oneLine } from './oneLine';

/**
 * Definition lists in the syntax of PHP Markdown Extra and Pandoc: the term on its own line,
 * each definition on the next line after ": ". Those renderers show a real definition list;
 * GFM, which has none, shows "term : definition", still readable. The term is bold so the pair
 * stands out in either.
 */
export function addDefinitionListRules(service: TurndownService): void {
  service.addRule('definitionList', {
    filter: 'dl',
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  });
  service.addRule('definitionTerm', {
    filter: 'dt',
    replacement(content, node) {
      const term = oneLine(content);
      if (!term) return '';
      // Consecutive terms share the definitions that follow them.
      return `${node.previousElementSibling?.nodeName === 'DT' ? '\n' : '\n\n'}**${term}**`;
    },
  });
  service.addRule('definitionDescription', {
    filter: 'dd',
    replacement(content) {
      const text = content
        .trim()
        .replace(/\n{2,}/g, '\n')
        .replace(/\n/g, '\n  ');
      return text ? `\n: ${text}` : '';
    },
  });
}
