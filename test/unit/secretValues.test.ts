import { HIDDEN, hiddenOutcome, SecretValues } from '../../src/browser/secretValues';

const SNAPSHOT = `- paragraph [ref=e17]:
  - text: Card number
  - textbox "Card number" [ref=e18]: 4111 1111 1111 1111
  - textbox "CVC" [active] [ref=e20]: "123"
  - textbox "Full name" [ref=e8]: Ana Example
- text: Card 4111 1111 1111 1111 saved
- link "Item 123" [ref=e123]`;

describe('SecretValues', () => {
  const field = (name: string) => ({ tag: 'input', name });

  it('hides the caller’s answers wherever they show, and short ones as a field’s value only', () => {
    const secrets = new SecretValues();
    secrets.typed(field('card'), '4111 1111 1111 1111', 'caller', false);
    secrets.typed(field('cvc'), '123', 'caller', false);
    const hidden = secrets.hide(SNAPSHOT);
    expect(hidden).not.toContain('4111');
    expect(hidden).toContain(`textbox "CVC" [active] [ref=e20]: ${HIDDEN}`);
    expect(hidden).toContain('link "Item 123" [ref=e123]');
    expect(hidden).toContain('Ana Example');
  });

  it('hides credentials typed from data, not other data the model was shown', () => {
    const secrets = new SecretValues();
    secrets.typed({ tag: 'input', type: 'password', name: 'password' }, 'correct-horse-42', 'data', false);
    secrets.typed(field('name'), 'Ana Example', 'data', false);
    const text = secrets.hide(
      '- textbox "Password" [ref=e5]: correct-horse-42\n- textbox "Name" [ref=e6]: Ana Example',
    );
    expect(text).not.toContain('correct-horse-42');
    expect(text).toContain('Ana Example');
  });

  it('hides the values it was told to protect, whatever field they were typed into, or none', () => {
    const secrets = new SecretValues();
    secrets.typed({ tag: 'input', label: 'Confirm' }, 'plain-looking-1', 'data', true);
    secrets.protect(['registered-2', '']);
    const text = secrets.hide('- textbox "Confirm" [ref=e5]: plain-looking-1\n- text: You typed registered-2');
    expect(text).toBe(`- textbox "Confirm" [ref=e5]: ${HIDDEN}\n- text: You typed ${HIDDEN}`);
  });

  it('hides them from the address, the title and the error of what a session answers', () => {
    const secrets = new SecretValues();
    secrets.protect(['correct-horse-42']);
    expect(
      hiddenOutcome(secrets, {
        url: 'https://shop.example/?typed=correct-horse-42',
        title: 'Note: correct-horse-42',
        error: 'correct-horse-42 is not valid',
        navigated: false,
      }),
    ).toEqual({
      url: `https://shop.example/?typed=${HIDDEN}`,
      title: `Note: ${HIDDEN}`,
      error: `${HIDDEN} is not valid`,
      navigated: false,
    });
  });

  describe('a value the page shows encoded', () => {
    const password = 'Tr0ub4dor&3 horse!';
    const secrets = new SecretValues();
    secrets.protect([password]);
    const json = (value: string) => JSON.stringify({ note: value });
    const shown: [string, string][] = [
      ['URL-encoded', `/share?text=${encodeURIComponent(password)}`],
      ['URL-encoded, lower-case escapes', `/share?text=${encodeURIComponent(password).toLowerCase()}`],
      ['URL-encoded twice', `/r?to=${encodeURIComponent(`/share?text=${encodeURIComponent(password)}`)}`],
      ['form-encoded', `Form: ${new URLSearchParams({ text: password }).toString()}`],
      ['in an address path', `https://shop.example/notes/${encodeURI(password)}/edit`],
      ['as HTML with named entities', `Markup: ${password.replace(/&/g, '&amp;')}`],
      ['as decimal entities', [...password].map((c) => `&#${c.charCodeAt(0)};`).join('')],
      ['as hex entities', [...password].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('')],
      ['in base64, inside JSON', `Token: ${Buffer.from(json(password)).toString('base64')}`],
      ['in base64url, at another alignment', Buffer.from(`xy${json(password)}`).toString('base64url')],
    ];
    it.each(shown)('hides it %s', (_how, text) => {
      const hidden = secrets.hide(text);
      expect(hidden).toContain(HIDDEN);
      expect(hidden.replace(HIDDEN, '')).not.toMatch(/Tr0ub|horse/i);
    });

    it('leaves text without it as it is', () => {
      const text = 'Share: /share?text=Tr0ub4dor%263 Markup: &amp; Token: eyJub3RlIjoiaGkifQ';
      expect(secrets.hide(text)).toBe(text);
    });
  });
});
