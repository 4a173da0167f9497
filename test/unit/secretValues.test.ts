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
});
