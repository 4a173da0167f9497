import type { FieldFacts } from '../operations/automate';

/**
 * Which form fields and values hold data the action firewall guards: credentials (passwords,
 * one-time and card security codes, payment cards, bank accounts, national ids, secrets) and
 * personal contact data (email addresses, phone numbers, postal addresses, dates of birth).
 * Pure: the workflow (protected values of `data`) and the browser sessions (fills) both use it.
 */

export type Sensitivity = 'credential' | 'personal';

/** What a sensitive field or value holds, in the words a refusal uses. */
export type SensitiveKind =
  | 'password'
  | 'one-time code'
  | 'payment card'
  | 'bank account'
  | 'national id'
  | 'secret'
  | 'email address'
  | 'phone number'
  | 'postal address'
  | 'date of birth';

export interface SensitiveMatch {
  sensitivity: Sensitivity;
  kind: SensitiveKind;
}

const CREDENTIAL_KINDS: ReadonlySet<SensitiveKind> = new Set([
  'password',
  'one-time code',
  'payment card',
  'bank account',
  'national id',
  'secret',
]);

function match(kind: SensitiveKind): SensitiveMatch {
  return { sensitivity: CREDENTIAL_KINDS.has(kind) ? 'credential' : 'personal', kind };
}

/** Credentials first: a field that matches both kinds is treated as the stricter one. */
function stricter(matches: (SensitiveMatch | undefined)[]): SensitiveMatch | undefined {
  return matches.find((m) => m?.sensitivity === 'credential') ?? matches.find((m) => m !== undefined);
}

/** HTML autofill field names (WHATWG HTML, "Autofill"), by the last token that names a field. */
function autocompleteKind(token: string): SensitiveKind | undefined {
  if (token === 'current-password' || token === 'new-password') return 'password';
  if (token === 'one-time-code') return 'one-time code';
  if (token.startsWith('cc-')) return 'payment card';
  if (token === 'email') return 'email address';
  if (token === 'tel' || token.startsWith('tel-')) return 'phone number';
  if (
    token === 'street-address' ||
    token.startsWith('address-line') ||
    token.startsWith('address-level') ||
    token === 'postal-code' ||
    token === 'country' ||
    token === 'country-name'
  ) {
    return 'postal address';
  }
  if (token === 'bday' || token.startsWith('bday-')) return 'date of birth';
  return undefined;
}

/**
 * Keywords of names, ids, labels and placeholders, matched on normalized text (lower case, no
 * accents, words separated by one space, camelCase split). English, German, French, Spanish,
 * Italian, Portuguese and Dutch. `\b` keeps short words (pin, tel, plz) from matching inside
 * others; stems without it also catch compounds (`confirmpassword`, `Lieferadresse`).
 */
const CREDENTIAL_KEYWORDS: [SensitiveKind, RegExp][] = [
  [
    'password',
    /password|passwort|passwd|passcode|passphrase|kennwort|wachtwoord|contrasena|\b(pwd|pass|mdp|senha|clave|mot de passe)\b/,
  ],
  [
    'one-time code',
    /\b(otp|totp|2fa|mfa|pin|pin ?code|geheimzahl|one time (pass )?code|verification code|auth(entication)? code|sms code|bestatigungscode|einmalcode|code de verification|code a usage unique|codigo de verificacion|codice di verifica|codigo de verificacao|verificatiecode)\b/,
  ],
  [
    'payment card',
    /\b(card ?(number|no|num)|cc ?(number|num|no)|ccnum|credit ?card|debit ?card|cvv2?|cvc2?|csc|card verification|security code|expiry|exp date|expiration date|kartennummer|kreditkarte\w*|kartenprufnummer|prufnummer|sicherheitscode|numero de carte|carte bancaire|carte de credit|cryptogramme|code de securite|numero de tarjeta|tarjeta de credito|codigo de seguridad|numero( della)? carta|carta di credito|codice di sicurezza|numero do cartao|cartao de credito|kaartnummer|creditcard|beveiligingscode)\b/,
  ],
  [
    'bank account',
    /\b(iban|account ?(number|no)|acct ?(number|no)|routing ?number|sort ?code|bank ?account|kontonummer|bankleitzahl|blz|numero de compte|numero de cuenta|clabe|rekeningnummer)\b/,
  ],
  [
    'national id',
    /\b(ssn|social security|social insurance|national (id|identity|insurance)|passport|tax ?(id|number)|taxpayer|drivers? licen[cs]e|driving licen[cs]e|identity card|id card number|steuer ?(id|nummer)|steueridentifikationsnummer|sozialversicherungsnummer|personalausweis\w*|ausweisnummer|reisepass\w*|numero de securite sociale|passeport|carte d identite|numero fiscal|pasaporte|dni|nie|nif|curp|rfc|codice fiscale|passaporto|cpf|bsn|burgerservicenummer|paspoort|aadhaar)\b/,
  ],
  [
    'secret',
    /\b(secret|api ?key|access ?token|private ?key|recovery (code|phrase)|backup code|seed phrase|mnemonic)\b/,
  ],
];

const PERSONAL_KEYWORDS: [SensitiveKind, RegExp][] = [
  [
    'email address',
    /email|\b(e ?mail|mail|courriel|correo( electronico)?|adresse electronique|posta elettronica|emailadres)\b/,
  ],
  [
    'phone number',
    /telefon|telefoon|handynummer|mobilnummer|(?<!\bi )\b((tele|mobile|cell|home|work|contact)?phone(number|num|no|nr)?|tel|mobile|cell|handy|mobil|portable|movil|celular|cellulare|mobiel|gsm)\b/,
  ],
  [
    'postal address',
    /adresse|anschrift|postleitzahl|hausnummer|wohnort|\b(address(line)?\d?|addr|street|house ?number|zip( ?code)?|postal ?code|post ?code|city|town|strasse|plz|ort|stadt|rue|code postal|ville|direccion|calle|codigo postal|ciudad|indirizzo|citta|endereco|rua|cep|cidade|adres|straat|huisnummer|woonplaats)\b/,
  ],
  [
    'date of birth',
    /\b(birthday|birth ?date|date of birth|dob|geburtsdatum|date de naissance|fecha de nacimiento|data di nascita|data de nascimento|geboortedatum)\b/,
  ],
];

/**
 * Names, labels and key paths are read this far: longer text is prose, not a field's name, and
 * the keyword patterns' cost grows with their input.
 */
export const MAX_WORDS_CHARS = 256;

function normalize(text: string): string {
  return (
    text
      .replace(/([a-z\d])([A-Z])/g, '$1 $2')
      // `HTMLParser` is `HTML Parser`. A lookahead, as `([A-Z]+)([A-Z][a-z])` went back over a run
      // of capitals from each of its letters: quadratic in the run's length.
      .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
      .toLowerCase()
      .replace(/ß/g, 'ss')
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()
  );
}

/** What the words of a name, label or key path say the field holds. */
export function keywordMatch(text: string, personal = true): SensitiveMatch | undefined {
  const words = normalize(text.slice(0, MAX_WORDS_CHARS));
  if (!words) return undefined;
  const credential = CREDENTIAL_KEYWORDS.find(([, pattern]) => pattern.test(words));
  if (credential) return match(credential[0]);
  if (!personal) return undefined;
  const found = PERSONAL_KEYWORDS.find(([, pattern]) => pattern.test(words));
  return found ? match(found[0]) : undefined;
}

/** What a form field holds, from its type, autocomplete tokens and words. */
export function classifyField(field: FieldFacts): SensitiveMatch | undefined {
  const type = field.type?.toLowerCase();
  const byType =
    type === 'password'
      ? match('password')
      : type === 'email'
        ? match('email address')
        : type === 'tel'
          ? match('phone number')
          : undefined;
  const tokens = (field.autocomplete ?? '').toLowerCase().split(/\s+/);
  const autocomplete = tokens.map(autocompleteKind).find((kind) => kind !== undefined);
  // A search box ("city, address or ZIP") or any GET form field ends up in a URL the page's own
  // host receives anyway: its words alone do not make it personal, so the agent can search.
  const searchLike = type === 'search' || field.form?.method === 'get';
  const words = [field.name, field.id, field.label, field.placeholder].map((text) =>
    text ? keywordMatch(text, !searchLike) : undefined,
  );
  const placeholderValue = field.placeholder ? classifyValue(field.placeholder) : undefined;
  return stricter([
    byType,
    autocomplete ? match(autocomplete) : undefined,
    ...words,
    placeholderValue?.sensitivity === 'personal' ? placeholderValue : undefined,
  ]);
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const CARD_CANDIDATE = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;
/** A number in international form (+49 ...) anywhere in a text. */
const INTERNATIONAL_PHONE = /(?<![\w+])\+\d[\d ().-]{6,18}\d/;
const DATE_LIKE = /^(\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$/;
const THOUSANDS = /^[1-9]\d{0,2}([ .,]\d{3})+([.,]\d+)?$/;

function looksLikePhone(text: string): boolean {
  const value = text.trim();
  const international = INTERNATIONAL_PHONE.exec(value)?.[0].replace(/\D/g, '');
  if (international && international.length >= 8 && international.length <= 15) return true;
  const digits = value.replace(/\D/g, '');
  // National forms have at most 12 digits; longer runs are ISBNs, EANs, tracking numbers.
  if (!/^[\d ().-]+$/.test(value) || digits.length < 7 || digits.length > 12) return false;
  if (DATE_LIKE.test(value) || THOUSANDS.test(value)) return false;
  // Bare digits are as likely an order number or a quantity: a phone number shows its groups.
  return /\(\d+\)/.test(value) || value.split(/[ .-]+/).filter(Boolean).length >= 3;
}

/** Characters that end an address in running text, besides white space. */
const NOT_IN_ADDRESS = new Set(['@', '<', '>', '(', ')', '[', ']', '\\', ',', ';', ':', '"', "'"]);

function inAddress(char: string | undefined): boolean {
  return char !== undefined && !NOT_IN_ADDRESS.has(char) && !/\s/.test(char);
}

function isAsciiLetter(char: string | undefined): boolean {
  return char !== undefined && /^[a-z]$/i.test(char);
}

/**
 * Whether `text` holds something@domain.tld: a character of an address before an `@`, and after
 * it a run of them with a dot, not first, followed by two letters. Each `@` reads only up to the
 * next character that cannot be in an address (another `@` is one), so no character is read more
 * than twice. The pattern this replaces, /[^\s@…]+@[^\s@…]+\.[a-z]{2,}/i, went back over the
 * whole run from each of its characters: a 65,000-character word without `@` took 48 s.
 */
function hasEmailAddress(text: string): boolean {
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    if (!inAddress(text[at - 1])) continue;
    for (let i = at + 1; inAddress(text[i]); i++) {
      if (text[i] === '.' && i > at + 1 && isAsciiLetter(text[i + 1]) && isAsciiLetter(text[i + 2])) return true;
    }
  }
  return false;
}

/** What a value looks like, whatever field it goes to. */
export function classifyValue(value: string): SensitiveMatch | undefined {
  for (const candidate of value.match(CARD_CANDIDATE) ?? []) {
    const digits = candidate.replace(/\D/g, '');
    // Card numbers start with 2-6 (Mastercard, Amex, Diners, JCB, Visa, Discover, UnionPay...):
    // this keeps most ISBNs and EAN barcodes, 10% of which pass Luhn by chance, from counting.
    if (/^[2-6]/.test(digits) && luhnValid(digits)) return match('payment card');
  }
  if (hasEmailAddress(value)) return match('email address');
  if (looksLikePhone(value)) return match('phone number');
  return undefined;
}

export function fieldSensitivity(field: FieldFacts): Sensitivity | undefined {
  return classifyField(field)?.sensitivity;
}

export function valueSensitivity(value: string): Sensitivity | undefined {
  return classifyValue(value)?.sensitivity;
}

/** Shorter values are too common to recognise in a URL without refusing innocent ones. */
export const MIN_PROTECTED_LENGTH = 4;

/**
 * The leaves of a request's `data` that are sensitive by their key path (`user.password`,
 * `billing.address.city`) or by their value (a card number under `notes`): strings and numbers,
 * trimmed, at least MIN_PROTECTED_LENGTH characters, each once.
 */
export function protectedValuesOf(data: unknown): string[] {
  const found = new Set<string>();
  const visit = (node: unknown, path: string, sensitivePath: boolean): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, path, sensitivePath);
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        // The path's last words, the leaf's own key above all: a deep path is not re-read whole at every leaf.
        const childPath = `${path} ${key}`.slice(-MAX_WORDS_CHARS);
        visit(child, childPath, sensitivePath || keywordMatch(childPath) !== undefined);
      }
    } else if (typeof node === 'string' || typeof node === 'number') {
      const value = String(node).trim();
      if (value.length >= MIN_PROTECTED_LENGTH && (sensitivePath || classifyValue(value))) found.add(value);
    }
  };
  visit(data, '', false);
  return [...found];
}
