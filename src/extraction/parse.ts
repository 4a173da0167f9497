import { parseHTML } from 'linkedom';

/**
 * `<![CDATA[` in HTML (outside SVG and MathML) is a bogus comment that ends at the next `>`, as
 * browsers read it; linkedom's parser reads a CDATA section up to `]]>` instead, so one stray
 * opener (some forum software emits them) swallowed the rest of the page. Scripts and styles are
 * raw text, where `//<![CDATA[` is common and harmless: they are skipped over, not touched.
 */
const STRAY_CDATA = /(<script\b[\s\S]*?<\/script\s*>|<style\b[\s\S]*?<\/style\s*>)|<!\[CDATA\[[^>]*>/gi;

/** Parses a page as a browser would see its structure. */
export function parseDocument(html: string): Document {
  const source = html.includes('<![CDATA[') ? html.replace(STRAY_CDATA, (_match, raw: string | undefined) => raw ?? '') : html;
  return parseHTML(source).document;
}
