import { parseHTML } from 'linkedom';

/**
 * linkedom is patched (patches/linkedom+*.patch) to make a node's listener map on its first
 * listener instead of with every node; events still behave as the DOM says, on nodes with and
 * without listeners.
 */
const window = () => parseHTML('<html><body><main><p id="a">one</p><p id="b">two</p></main></body></html>');

it('delivers an event to its target and bubbles it to the ancestors listening', () => {
  const { document, Event } = window();
  const seen: string[] = [];
  const target = document.getElementById('a')!;
  target.addEventListener('ping', () => seen.push('target'));
  document.body.addEventListener('ping', (event: Event) => seen.push(`body from ${(event.target as Element).id}`));
  target.dispatchEvent(new Event('ping', { bubbles: true }));
  expect(seen).toEqual(['target', 'body from a']);
});

it('keeps `once` listeners to one call and forgets removed ones', () => {
  const { document, Event } = window();
  const node = document.getElementById('b')!;
  let once = 0;
  let removed = 0;
  const removedListener = () => removed++;
  node.addEventListener('ping', () => once++, { once: true });
  node.addEventListener('ping', removedListener);
  node.removeEventListener('ping', removedListener);
  node.dispatchEvent(new Event('ping'));
  node.dispatchEvent(new Event('ping'));
  expect({ once, removed }).toEqual({ once: 1, removed: 0 });
});

it('takes removals and events on nodes that never had a listener', () => {
  const { document, Event } = window();
  const node = document.getElementById('a')!;
  expect(() => node.removeEventListener('ping', () => undefined)).not.toThrow();
  expect(node.dispatchEvent(new Event('ping', { bubbles: true }))).toBe(true);
});
