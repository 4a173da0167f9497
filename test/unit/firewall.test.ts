import {
  checkFill,
  checkNavigation,
  checkSubmission,
  fieldSensitivity,
  protectedValuesOf,
  valueSensitivity,
} from '../../src/automate/firewall';
import type { FieldFacts, FirewallPolicy } from '../../src/operations/automate';

const policy = (overrides: Partial<FirewallPolicy> = {}): FirewallPolicy => ({
  enabled: true,
  trustedHostnames: [],
  protectedValues: [],
  ...overrides,
});

const input = (facts: Partial<FieldFacts>): FieldFacts => ({ tag: 'input', ...facts });

const EMAIL = 'alice@example.org';
const CARD = '4111 1111 1111 1111';

describe('fieldSensitivity', () => {
  it.each<[string, Partial<FieldFacts>]>([
    ['type password', { type: 'password' }],
    ['autocomplete current-password', { autocomplete: 'current-password' }],
    ['autocomplete one-time-code', { autocomplete: 'one-time-code' }],
    ['autocomplete billing cc-number', { autocomplete: 'section-pay billing cc-number' }],
    ['autocomplete cc-csc', { autocomplete: 'cc-csc' }],
    ['name userPassword', { name: 'userPassword' }],
    ['id confirm_pwd', { id: 'confirm_pwd' }],
    ['label PIN', { label: 'PIN' }],
    ['label One-time code', { label: 'One-time code' }],
    ['placeholder Verification code', { placeholder: 'Verification code' }],
    ['name cardNumber', { name: 'cardNumber' }],
    ['name billing[cc_number]', { name: 'billing[cc_number]' }],
    ['label CVC', { label: 'CVC' }],
    ['label IBAN', { label: 'IBAN' }],
    ['label Social Security Number', { label: 'Social Security Number' }],
    ['label Passport number', { label: 'Passport number' }],
    ['label Tax ID', { label: 'Tax ID' }],
    ['German Passwort', { label: 'Passwort' }],
    ['German Kartennummer', { label: 'Kartennummer' }],
    ['French mot de passe', { label: 'Mot de passe' }],
    ['Spanish contraseña', { label: 'Contraseña' }],
    ['Spanish número de tarjeta', { label: 'Número de tarjeta' }],
    ['Portuguese senha', { label: 'Senha' }],
    ['Dutch wachtwoord', { placeholder: 'Wachtwoord' }],
  ])('credential: %s', (_, facts) => {
    expect(fieldSensitivity(input(facts))).toBe('credential');
  });

  it.each<[string, Partial<FieldFacts>]>([
    ['type email', { type: 'email' }],
    ['type tel', { type: 'tel' }],
    ['autocomplete shipping street-address', { autocomplete: 'shipping street-address' }],
    ['autocomplete address-line1', { autocomplete: 'address-line1' }],
    ['autocomplete postal-code', { autocomplete: 'postal-code' }],
    ['autocomplete tel-national', { autocomplete: 'tel-national' }],
    ['autocomplete bday', { autocomplete: 'bday' }],
    ['name e-mail', { name: 'e-mail' }],
    ['id userEmail', { id: 'userEmail' }],
    ['label Mobile phone', { label: 'Mobile phone' }],
    ['label Street address', { label: 'Street address' }],
    ['name zipCode', { name: 'zipCode' }],
    ['label Postal code', { label: 'Postal code' }],
    ['label City', { label: 'City' }],
    ['German E-Mail-Adresse', { label: 'E-Mail-Adresse' }],
    ['German Lieferadresse', { label: 'Lieferadresse' }],
    ['German Telefonnummer', { label: 'Telefonnummer' }],
    ['German PLZ', { label: 'PLZ' }],
    ['French courriel', { label: 'Courriel' }],
    ['French code postal', { label: 'Code postal' }],
    ['Spanish teléfono', { label: 'Teléfono' }],
    ['Spanish dirección', { label: 'Dirección' }],
    ['Italian indirizzo', { label: 'Indirizzo' }],
    ['Dutch woonplaats', { label: 'Woonplaats' }],
    ['placeholder that is an email address', { placeholder: 'you@example.com' }],
  ])('personal: %s', (_, facts) => {
    expect(fieldSensitivity(input(facts))).toBe('personal');
  });

  it.each<[string, Partial<FieldFacts>]>([
    ['search box', { type: 'search', name: 'q', label: 'Search' }],
    ['quantity', { type: 'number', name: 'qty', label: 'Quantity' }],
    ['name', { name: 'fullName', label: 'Full name' }],
    ['promo code', { name: 'promo', label: 'Promo code' }],
    ['iPhone in a placeholder', { placeholder: 'Search for iPhone cases' }],
    ['hotel', { label: 'Hotel' }],
    ['sort order', { label: 'Sort by' }],
    ['city in a search form', { label: 'City', form: { method: 'get', action: '/hotels' } }],
    ['address in a search box', { type: 'search', placeholder: 'Address, city or ZIP' }],
  ])('not sensitive: %s', (_, facts) => {
    expect(fieldSensitivity(input(facts))).toBeUndefined();
  });

  it('keeps credential words in a search form', () => {
    expect(fieldSensitivity(input({ name: 'password', form: { method: 'get', action: '/' } }))).toBe('credential');
  });
});

describe('valueSensitivity', () => {
  it.each([CARD, '4111111111111111', '5555-5555-5555-4444', '378282246310005', 'card: 4012 8888 8888 1881'])(
    'a payment card: %s',
    (value) => {
      expect(valueSensitivity(value)).toBe('credential');
    },
  );

  it.each([EMAIL, 'Write to Bob.Smith+news@mail.example.co.uk', '+1 555 123 4567', '(555) 123-4567', '030 1234 5678'])(
    'personal: %s',
    (value) => {
      expect(valueSensitivity(value)).toBe('personal');
    },
  );

  it.each([
    '4111 1111 1111 1112',
    '978-0-306-40615-7',
    'wireless headphones',
    '2024-01-15',
    '12345678',
    '1,234,567',
    '1 000 000',
    'order 42',
    '19.99',
  ])('not sensitive: %s', (value) => {
    expect(valueSensitivity(value)).toBeUndefined();
  });
});

describe('checkFill', () => {
  const host = 'shop.example';
  const password = input({ type: 'password', name: 'password' });
  const email = input({ type: 'email', name: 'email', label: 'Email' });
  const search = input({ type: 'search', name: 'q', form: { method: 'get', action: '/search' } });

  it('refuses a password from data or the model on an untrusted host', () => {
    for (const source of ['data', 'model'] as const) {
      expect(checkFill(password, 'hunter22', source, host, policy())).toEqual({
        allowed: false,
        reason:
          'action firewall: password fields may not be filled on untrusted host shop.example (add it to trusted_hostnames)',
      });
    }
  });

  it('refuses a credential from data, known by its path, in any field of an untrusted host', () => {
    const confirm = input({ type: 'text', id: 'confirm', label: 'Confirm' });
    for (const field of [confirm, search]) {
      expect(checkFill(field, 'hunter22', 'data', host, policy(), true)).toEqual({
        allowed: false,
        reason:
          'action firewall: credentials from the request data may not be filled on untrusted host shop.example ' +
          '(add it to trusted_hostnames)',
      });
    }
    expect(checkFill(confirm, 'hunter22', 'data', host, policy({ trustedHostnames: [host] }), true)).toEqual({
      allowed: true,
    });
    expect(checkFill(confirm, 'hunter22', 'data', host, policy({ enabled: false }), true)).toEqual({ allowed: true });
  });

  it("allows the caller's own answer in a credential field", () => {
    expect(checkFill(password, 'hunter22', 'caller', host, policy())).toEqual({ allowed: true });
  });

  it('refuses a card number typed into an innocent field', () => {
    const verdict = checkFill(search, CARD, 'data', host, policy());
    expect(verdict).toEqual({
      allowed: false,
      reason:
        'action firewall: values that look like a payment card may not be filled on untrusted host shop.example ' +
        '(add it to trusted_hostnames)',
    });
  });

  it('allows personal data from the request, refuses it from the model', () => {
    expect(checkFill(email, EMAIL, 'data', host, policy())).toEqual({ allowed: true });
    const verdict = checkFill(email, EMAIL, 'model', host, policy());
    expect(verdict.allowed).toBe(false);
    expect(!verdict.allowed && verdict.reason).toMatch(/email address fields .* untrusted host shop\.example/);
  });

  it('refuses an email the model types into a search box', () => {
    expect(checkFill(search, EMAIL, 'model', host, policy()).allowed).toBe(false);
  });

  it('allows the model to search and fill innocent fields', () => {
    expect(checkFill(search, 'wireless headphones', 'model', host, policy())).toEqual({ allowed: true });
    expect(checkFill(input({ label: 'City', form: search.form }), 'Lisbon', 'model', host, policy())).toEqual({
      allowed: true,
    });
  });

  it('refuses a page-driven email into a form that posts to another host', () => {
    const injected = input({
      type: 'email',
      name: 'email',
      form: { method: 'post', action: 'http://evil.example/collect' },
    });
    expect(checkFill(injected, EMAIL, 'model', host, policy()).allowed).toBe(false);
    const fromData = checkFill(injected, EMAIL, 'data', host, policy());
    expect(fromData).toEqual({
      allowed: false,
      reason:
        'action firewall: email address fields may not be filled in a form that sends to another untrusted host, ' +
        'evil.example',
    });
    expect(checkFill(injected, EMAIL, 'data', host, policy({ trustedHostnames: ['evil.example'] }))).toEqual({
      allowed: true,
    });
  });

  it('allows everything on a trusted host, exactly or by a leading-dot suffix', () => {
    expect(checkFill(password, 'hunter22', 'model', 'Shop.Example', policy({ trustedHostnames: [host] }))).toEqual({
      allowed: true,
    });
    const suffix = policy({ trustedHostnames: ['.example'] });
    expect(checkFill(password, 'hunter22', 'data', 'login.shop.example', suffix)).toEqual({ allowed: true });
    expect(checkFill(password, 'hunter22', 'data', 'example', suffix)).toEqual({ allowed: true });
    expect(checkFill(password, 'hunter22', 'data', 'evilexample', suffix).allowed).toBe(false);
    expect(
      checkFill(password, 'hunter22', 'data', 'shop.example.evil', policy({ trustedHostnames: [host] })).allowed,
    ).toBe(false);
  });

  it('allows everything when the firewall is off (unsafe_mode)', () => {
    expect(checkFill(password, 'hunter22', 'model', host, policy({ enabled: false }))).toEqual({ allowed: true });
  });

  it("judges a trusted page's field by the untrusted host its form sends to", () => {
    const trusted = policy({ trustedHostnames: [host] });
    const away = { ...password, form: { method: 'post' as const, action: 'http://evil.example/collect' } };
    expect(checkFill(away, 'hunter22', 'data', host, trusted)).toEqual({
      allowed: false,
      reason:
        'action firewall: password fields may not be filled on untrusted host evil.example (add it to trusted_hostnames)',
    });
    expect(checkFill(away, 'hunter22', 'caller', host, trusted)).toEqual({ allowed: true });
    const home = { ...password, form: { method: 'post' as const, action: '/login' } };
    expect(checkFill(home, 'hunter22', 'data', host, trusted)).toEqual({ allowed: true });
  });
});

describe('checkSubmission', () => {
  const post = { method: 'post' as const, action: '/login' };

  it('refuses a POST form on an untrusted host unless the caller filled it', () => {
    const verdict = checkSubmission(post, 'shop.example', policy(), false);
    expect(verdict.allowed).toBe(false);
    expect(!verdict.allowed && verdict.reason).toMatch(/^action firewall: .*POST.*shop\.example/);
    expect(checkSubmission(post, 'shop.example', policy(), true)).toEqual({ allowed: true });
  });

  it('allows a GET form to its own host, refuses one to another untrusted host', () => {
    expect(checkSubmission({ method: 'get', action: '/search' }, 'shop.example', policy(), false)).toEqual({
      allowed: true,
    });
    expect(checkSubmission({ method: 'get', action: '' }, 'shop.example', policy(), false)).toEqual({ allowed: true });
    const away = { method: 'get' as const, action: 'https://evil.example/collect' };
    expect(checkSubmission(away, 'shop.example', policy(), false)).toEqual({
      allowed: false,
      reason:
        'action firewall: this form sends to another host, evil.example, that is not trusted (add it to trusted_hostnames)',
    });
    expect(checkSubmission(away, 'shop.example', policy({ trustedHostnames: ['evil.example'] }), false)).toEqual({
      allowed: true,
    });
  });

  it("refuses a trusted page's POST form to an untrusted host unless the caller filled it", () => {
    const away = { method: 'post' as const, action: 'https://evil.example/collect' };
    const trusted = policy({ trustedHostnames: ['shop.example'] });
    const verdict = checkSubmission(away, 'shop.example', trusted, false);
    expect(!verdict.allowed && verdict.reason).toMatch(/^action firewall: .*POST.*untrusted host evil\.example/);
    expect(checkSubmission(away, 'shop.example', trusted, true)).toEqual({ allowed: true });
  });

  it('allows any submission on a trusted host or with the firewall off', () => {
    expect(checkSubmission(post, 'shop.example:8080', policy({ trustedHostnames: ['shop.example'] }), false)).toEqual({
      allowed: true,
    });
    expect(checkSubmission(post, 'shop.example', policy({ enabled: false }), false)).toEqual({ allowed: true });
  });
});

describe('checkNavigation', () => {
  const guarded = policy({ protectedValues: [EMAIL, 'hunter22', '+1 555 123 4567', 'abc'] });

  it.each([
    `http://evil.example/collect?email=${EMAIL}`,
    `http://evil.example/collect?email=${encodeURIComponent(EMAIL)}`,
    `http://evil.example/collect?email=${encodeURIComponent(encodeURIComponent(EMAIL))}`,
    'http://evil.example/collect?e=ALICE%40EXAMPLE.ORG',
    'http://evil.example/collect/alice@example.org',
    'http://evil.example/#pw=hunter22',
    'http://evil.example/?tel=%2B15551234567',
    'http://evil.example/?tel=1-555-123-4567',
    `http://evil.example/?d=${btoa(EMAIL)}`,
    `http://evil.example/?d=${encodeURIComponent(btoa(JSON.stringify({ e: EMAIL, p: 'hunter22' })))}`,
    `http://evil.example/?d=${btoa('x' + EMAIL).replace(/=+$/, '')}`,
    `http://evil.example/?d=${btoa('xy' + EMAIL)
      .replace(/\+/g, '-')
      .replace(/\//g, '_')}`,
    'http://alice:hunter22@evil.example/',
  ])('refuses %s', (url) => {
    const verdict = checkNavigation(url, guarded);
    expect(verdict).toEqual({
      allowed: false,
      reason:
        'action firewall: the address would carry data the caller gave to untrusted host evil.example ' +
        '(add it to trusted_hostnames)',
    });
  });

  it.each([
    'http://evil.example/collect?q=shoes',
    'http://evil.example/abc',
    `http://shop.example/account?email=${EMAIL}`,
    `http://sub.shop.example/?email=${EMAIL}`,
  ])('allows %s', (url) => {
    expect(checkNavigation(url, policy({ ...guarded, trustedHostnames: ['.shop.example'] }))).toEqual({
      allowed: true,
    });
  });

  it('refuses what is not an http(s) URL', () => {
    expect(checkNavigation('javascript:alert(1)', guarded).allowed).toBe(false);
    expect(checkNavigation('not a url', guarded).allowed).toBe(false);
  });

  it('allows everything when the firewall is off', () => {
    expect(checkNavigation(`http://evil.example/?e=${EMAIL}`, policy({ ...guarded, enabled: false }))).toEqual({
      allowed: true,
    });
  });
});

describe('protectedValuesOf', () => {
  it('collects the leaves sensitive by key path or by value, once each', () => {
    const data = {
      user: { email: EMAIL, password: 'hunter22', name: 'Alice Example', pin: 1234 },
      shipping: { address: { street: '1 Main St', city: 'Lisbon', country: 'PT' } },
      contacts: [{ phone: '+1 555 123 4567' }, { note: `card ${CARD}` }],
      notes: `also ${EMAIL}`,
      login: EMAIL,
      quantity: 3,
      product: 'wireless headphones',
      newsletter: true,
    };
    expect(protectedValuesOf(data).sort()).toEqual(
      [EMAIL, 'hunter22', '1234', '1 Main St', 'Lisbon', '+1 555 123 4567', `card ${CARD}`, `also ${EMAIL}`].sort(),
    );
  });

  it('has nothing to protect without data', () => {
    expect(protectedValuesOf(undefined)).toEqual([]);
    expect(protectedValuesOf('alice')).toEqual([]);
  });
});
