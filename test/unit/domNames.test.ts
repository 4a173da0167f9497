import { DOMParser, parseHTML } from 'linkedom';

/**
 * linkedom is patched (patches/linkedom+*.patch) to remember upper-cased tag names instead of
 * making them on every read of `tagName`; names still follow the document's kind.
 */
it('upper-cases names in HTML and keeps them as written in XML, for any number of names', () => {
  const names = Array.from({ length: 1500 }, (_, i) => `x-Name${i}`);
  const { document } = parseHTML(`<html><body>${names.map((name) => `<${name}></${name}>`).join('')}</body></html>`);
  const xml = new DOMParser().parseFromString(
    `<root>${names.map((name) => `<${name}/>`).join('')}</root>`,
    'text/xml',
  ) as unknown as Document;
  for (let read = 0; read < 2; read++) {
    expect(Array.from(document.body.children, (element) => element.tagName)).toEqual(
      names.map((name) => name.toUpperCase()),
    );
    expect(Array.from(xml.documentElement.children, (element) => element.tagName)).toEqual(names);
  }
});
