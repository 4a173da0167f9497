import { findRef, resolveRefs } from '../support/snapshotRefs';

/**
 * Real output of `page.ariaSnapshot({ mode: 'ai' })` (playwright-core 1.65, Debian Chromium) on
 * the fixture shop (test/support/automateSite.ts): the home page, the login page after a
 * navigation (refs get a frame prefix), and the order confirmation (a YAML-quoted line).
 */
const HOME = `- generic [active] [ref=e1]:
  - banner [ref=e2]:
    - link "Webloom Test Shop" [ref=e3] [cursor=pointer]:
      - /url: /
  - main [ref=e4]:
    - heading "Webloom Test Shop" [level=1] [ref=e5]
    - search [ref=e6]:
      - searchbox "Search products" [ref=e7]
      - button "Search" [ref=e8]
    - navigation [ref=e9]:
      - link "Log in" [ref=e10] [cursor=pointer]:
        - /url: /login
      - link "Checkout" [ref=e11] [cursor=pointer]:
        - /url: /checkout
      - link "Today's deal" [ref=e12] [cursor=pointer]:
        - /url: /injected`;

const LOGIN = `- generic [active] [ref=f3e1]:
  - banner [ref=f3e2]:
    - link "Webloom Test Shop" [ref=f3e3] [cursor=pointer]:
      - /url: /
  - main [ref=f3e4]:
    - heading "Log in" [level=1] [ref=f3e5]
    - generic [ref=f3e6]:
      - text: Email
      - textbox "Email" [ref=f3e7]
      - text: Password
      - textbox "Password" [ref=f3e8]
      - button "Log in" [ref=f3e9]`;

const CONFIRMED = `- generic [active] [ref=f10e1]:
  - main [ref=f10e4]:
    - 'heading "Order confirmed: WL-1001" [level=1] [ref=f10e5]'
    - heading "Results for \\"aurora\\"" [level=1] [ref=f10e6]`;

const user = (content: string) => ({ role: 'user', content });

describe('snapshot ref placeholders', () => {
  it('finds the ref of a role and accessible name', () => {
    expect(findRef([user(HOME)], 'searchbox', 'Search products')).toBe('e7');
    expect(findRef([user(HOME)], 'button', 'Search')).toBe('e8');
    expect(findRef([user(HOME)], 'link', "Today's deal")).toBe('e12');
  });

  it('matches role and name exactly', () => {
    expect(findRef([user(HOME)], 'textbox', 'Search products')).toBeUndefined();
    expect(findRef([user(HOME)], 'button', 'Searc')).toBeUndefined();
    expect(findRef([user(LOGIN)], 'link', 'Log in')).toBeUndefined();
  });

  it('takes the last snapshot in the messages: the page the agent is on', () => {
    const messages = [user(`Page:\n${LOGIN}`), { role: 'assistant', content: '{}' }, user(LOGIN.replace(/f3/g, 'f4'))];
    expect(findRef(messages, 'textbox', 'Email')).toBe('f4e7');
  });

  it('reads YAML-quoted lines and escaped names', () => {
    expect(findRef([user(CONFIRMED)], 'heading', 'Order confirmed: WL-1001')).toBe('f10e5');
    expect(findRef([user(CONFIRMED)], 'heading', 'Results for "aurora"')).toBe('f10e6');
  });

  it('reads snapshots inside text parts and JSON messages', () => {
    const parts = {
      role: 'user',
      content: [
        { type: 'text', text: LOGIN },
        { type: 'image_url', image_url: {} },
      ],
    };
    expect(findRef([parts], 'button', 'Log in')).toBe('f3e9');
    expect(findRef([user(JSON.stringify({ url: '/login', snapshot: LOGIN }))], 'textbox', 'Password')).toBe('f3e8');
  });

  it('replaces placeholders in a scripted reply, escaped inside JSON strings or not', () => {
    const reply = JSON.stringify({ action: 'fill', ref: '{{ref:textbox "Email"}}', value: 'a@b.example' });
    expect(JSON.parse(resolveRefs(reply, [user(LOGIN)]))).toEqual({
      action: 'fill',
      ref: 'f3e7',
      value: 'a@b.example',
    });
    expect(resolveRefs('click {{ref:button "Log in"}} then {{ref:textbox "Password"}}', [user(LOGIN)])).toBe(
      'click f3e9 then f3e8',
    );
  });

  it('leaves a ref that names what was missing, and keeps the JSON valid', () => {
    const reply = JSON.stringify({ action: 'click', ref: '{{ref:button "Buy now"}}' });
    expect(JSON.parse(resolveRefs(reply, [user(LOGIN)]))).toEqual({
      action: 'click',
      ref: 'missing-ref:button:Buy now',
    });
  });
});
