import type TurndownService from 'turndown';
import { oneLine } from './oneLine';

/**
 * A figure's caption stays under its image, in italics so it reads as a caption rather than as
 * body text. Markdown has no caption syntax; this is how most Markdown writers set one.
 */
export function addFigureRules(service: TurndownService): void {
  service.addRule('figcaption', {
    filter: 'figcaption',
    replacement(content) {
      const text = oneLine(content);
      return text ? `\n\n*${text}*\n\n` : '';
    },
  });
}
