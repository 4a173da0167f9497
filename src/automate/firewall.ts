import type { FieldFacts, FirewallPolicy, ValueSource } from '../operations/automate';
import { classifyField, classifyValue, MIN_PROTECTED_LENGTH, type SensitiveMatch } from './sensitiveData';

export { fieldSensitivity, valueSensitivity, protectedValuesOf } from './sensitiveData';

/**
 * The action firewall (spec 2.9 `trusted_hostnames`, `unsafe_mode`): decides, before a browser
 * session types, submits or navigates, whether the action could hand the caller's sensitive data
 * to a host the caller did not trust. Page content reaches the model, so the model's choices are
 * treated as the page's: only values the caller gave (`data`, input answers) may go into
 * personal fields, only the caller's own answers into credential fields, and nothing the caller
 * gave may leave in a URL for an untrusted host.
 *
 * `trustedHostnames` entries match a host exactly (case-insensitive, port ignored); an entry
 * with a leading dot, `.example.com`, matches example.com and every subdomain of it.
 * Pure functions: the session activities call them, the workflow may too.
 */

export type FirewallVerdict = { allowed: true } | { allowed: false; reason: string };

const ALLOWED: FirewallVerdict = { allowed: true };
const TRUST_HINT = '(add it to trusted_hostnames)';

function refuse(reason: string): FirewallVerdict {
  return { allowed: false, reason: `action firewall: ${reason}` };
}

/** Lower case, no brackets, port or trailing dot: `Shop.Example.:8080` and `shop.example` are one host. */
export function normalizeHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) name = name.slice(1, name.indexOf(']') === -1 ? undefined : name.indexOf(']'));
  else if (name.split(':').length === 2) name = name.slice(0, name.indexOf(':'));
  return name.replace(/\.$/, '');
}

export function isTrustedHost(host: string, policy: FirewallPolicy): boolean {
  const name = normalizeHost(host);
  return policy.trustedHostnames.some((entry) => {
    const trusted = normalizeHost(entry);
    return trusted.startsWith('.') ? name === trusted.slice(1) || name.endsWith(trusted) : name === trusted;
  });
}

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/** Which of the two findings a refusal names: the field's when it has one. */
function sensitivityOf(
  field: SensitiveMatch | undefined,
  value: SensitiveMatch | undefined,
): { match: SensitiveMatch; byField: boolean } | undefined {
  if (field?.sensitivity === 'credential' || (field && value?.sensitivity !== 'credential')) {
    return { match: field, byField: true };
  }
  return value ? { match: value, byField: false } : undefined;
}

/**
 * The host a form sends to. An action that is not http(s) (`javascript:`, `mailto:`) sends
 * nothing by itself: the page's scripts do, to wherever the page could anyway.
 */
function actionHost(action: string, host: string): string {
  try {
    const url = new URL(action, `http://${host.includes(':') ? `[${host}]` : host}/`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? normalizeHost(url.hostname) : host;
  } catch {
    return host;
  }
}

/**
 * May `value` be typed into `field` on a page of `host`? `caller` values always may: the caller
 * typed them for this very field. A `credential` (the workflow knows it as one by its path in
 * `data`) never may on an untrusted host: the field's facts are the page's to choose, so a plain
 * box labelled "Confirm" whose script sends what is typed home is as good as a password field.
 */
export function checkFill(
  field: FieldFacts,
  value: string,
  source: ValueSource,
  pageHost: string,
  policy: FirewallPolicy,
  credential = false,
): FirewallVerdict {
  // A trusted page's form that sends elsewhere hands its fields to that host: they are judged there.
  const host =
    field.form && isTrustedHost(pageHost, policy) ? actionHost(field.form.action, normalizeHost(pageHost)) : pageHost;
  if (!policy.enabled || isTrustedHost(host, policy) || source === 'caller' || value.trim() === '') return ALLOWED;
  if (credential) {
    return refuse(
      `credentials from the request data may not be filled on untrusted host ${normalizeHost(host)} ${TRUST_HINT}`,
    );
  }
  const found = sensitivityOf(classifyField(field), classifyValue(value));
  if (!found) return ALLOWED;
  const name = normalizeHost(host);
  const { match, byField } = found;
  const what = byField ? `${match.kind} fields` : `values that look like ${article(match.kind)}`;
  if (match.sensitivity === 'credential') {
    return refuse(`${what} may not be filled on untrusted host ${name} ${TRUST_HINT}`);
  }
  if (source === 'model') {
    return refuse(
      `${what} may only be filled with the request's data or the caller's input on untrusted host ${name} ` +
        TRUST_HINT,
    );
  }
  // The caller's data may fill a personal field, but not one whose form sends it to yet another
  // untrusted host: the page chose that destination, not the caller.
  if (field.form) {
    const target = actionHost(field.form.action, name);
    if (target !== name && !isTrustedHost(target, policy)) {
      return refuse(`${what} may not be filled in a form that sends to another untrusted host, ${target}`);
    }
  }
  return ALLOWED;
}

/**
 * May the form be submitted? A POST form on an untrusted host, or sending to one, only when the
 * caller filled it (`consented`, through an input request); a GET form (a search) unless it
 * sends from an untrusted host to another untrusted host.
 */
export function checkSubmission(
  form: { method: 'get' | 'post'; action: string },
  host: string,
  policy: FirewallPolicy,
  consented: boolean,
): FirewallVerdict {
  if (!policy.enabled) return ALLOWED;
  if (isTrustedHost(host, policy)) {
    const target = actionHost(form.action, normalizeHost(host));
    if (form.method === 'get' || isTrustedHost(target, policy)) return ALLOWED;
    return checkSubmission(form, target, policy, consented);
  }
  const name = normalizeHost(host);
  if (form.method === 'post') {
    if (consented) return ALLOWED;
    return refuse(
      `forms that send data (POST) may only be submitted on untrusted host ${name} when the caller filled them ` +
        `in interactive mode ${TRUST_HINT}`,
    );
  }
  const target = actionHost(form.action, name);
  if (target !== name && !isTrustedHost(target, policy)) {
    return refuse(`this form sends to another host, ${target}, that is not trusted ${TRUST_HINT}`);
  }
  return ALLOWED;
}

/** Percent-escapes decoded (several rounds, for double encoding); malformed ones are left as they are. */
function percentDecode(text: string): string {
  let current = text;
  for (let round = 0; round < 3; round++) {
    const next = current.replace(/(%[0-9a-f]{2})+/gi, (escapes) => {
      try {
        return decodeURIComponent(escapes);
      } catch {
        return escapes;
      }
    });
    if (next === current) break;
    current = next;
  }
  return current;
}

/** Without case and the separators phone and card numbers are written with, in any of their forms. */
function compact(text: string): string {
  return text.toLowerCase().replace(/[\s().+/-]/g, '');
}

/** Bytes per String.fromCharCode call: spread in one, a long value's bytes overflow the stack. */
const CHARS_PER_CALL = 8_192;

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += CHARS_PER_CALL)
    binary += String.fromCharCode(...bytes.subarray(start, start + CHARS_PER_CALL));
  // Padding is at most two: `=+$` would go back over a run of `=` from each of its characters.
  return btoa(binary).replace(/={1,2}$/, '');
}

/**
 * The characters of the value's base64 that do not depend on what comes before or after it, at
 * each of the three byte alignments: they appear whenever the value is encoded inside a larger
 * text (`btoa(JSON.stringify({email, password}))`).
 */
export function base64Cores(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const shifted = new Uint8Array(shift + bytes.length);
    shifted.set(bytes, shift);
    const core = base64(shifted).slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    if (core.length >= MIN_PROTECTED_LENGTH) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

function carriesValue(texts: string[], value: string): boolean {
  const plain = compact(value).length >= MIN_PROTECTED_LENGTH ? compact(value) : value.toLowerCase();
  if (texts.some((text) => compact(text).includes(plain) || text.toLowerCase().includes(value.toLowerCase()))) {
    return true;
  }
  const cores = [...new Set([...base64Cores(value), ...base64Cores(value.toLowerCase())])];
  return texts.some((text) => cores.some((core) => text.includes(core)));
}

/**
 * The longest address to an untrusted host that is searched for the caller's values. The search
 * costs the address's length times the values' number (up to 2,000): a page's link of 1 MB took
 * 27 s of the browser worker. Longer ones are refused: unchecked, they could carry anything.
 */
export const MAX_CHECKED_URL_CHARS = 16 * 1024;

/**
 * May the session open `url`? Not when the host is untrusted and the URL (user info, host, path,
 * query or fragment; percent-decoded, any case; or base64-encoded) carries one of the values
 * the caller gave: that is how an injected page would send them away.
 */
export function checkNavigation(url: string, policy: FirewallPolicy): FirewallVerdict {
  if (!policy.enabled) return ALLOWED;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('the address to open is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return refuse('only http and https addresses may be opened');
  }
  const host = normalizeHost(parsed.hostname);
  if (isTrustedHost(host, policy)) return ALLOWED;
  if (policy.protectedValues.length > 0 && url.length > MAX_CHECKED_URL_CHARS) {
    return refuse(
      `addresses of untrusted host ${host} longer than ${MAX_CHECKED_URL_CHARS} characters are not opened while ` +
        `the request's data is protected ${TRUST_HINT}`,
    );
  }
  const rest = (text: string): string => text.replace(/^[a-z][a-z0-9+.-]*:\/*/i, '');
  const texts = [...new Set([rest(url), rest(parsed.href)])].flatMap((text) => [
    percentDecode(text),
    percentDecode(text.replace(/\+/g, ' ')),
  ]);
  const values = policy.protectedValues.map((value) => value.trim()).filter((v) => v.length >= MIN_PROTECTED_LENGTH);
  if (values.some((value) => carriesValue(texts, value))) {
    return refuse(`the address would carry data the caller gave to untrusted host ${host} ${TRUST_HINT}`);
  }
  return ALLOWED;
}
