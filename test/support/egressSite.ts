import http from 'node:http';
import { closeServers, listen } from './fixtureServer';
import { FIXTURE_HOST, OTHER_FIXTURE_HOST } from './localStack';

/**
 * Hostile pages for the action firewall's egress tests, on two loopback hosts: the tests trust
 * the first (`trustedUrl`, FIXTURE_HOST) and not the second (`untrustedUrl`, OTHER_FIXTURE_HOST).
 * Every request either host gets is recorded, so a test asserts that nothing the caller gave
 * reached the untrusted one.
 *
 * On the untrusted host:
 * - `/order`: heading "Order form"; a POST form to /order with textbox "Note", button "Place
 *   order" (submit), button "Send now" (type=button, its script calls `form.submit()`) and a
 *   `div role=button` "Confirm" whose script calls `form.requestSubmit()`.
 * - `/find`: heading "Find"; a GET form to /find with searchbox "Search" (name q) and button "Go".
 * - `/frame-login`: a POST form to /frame-login with textbox "Secret" (a password field) and
 *   button "Sign in", and outside it textbox "PIN" (a password field) whose script POSTs each
 *   keystroke's value to /pin; its script claims the trusted host's origin (`self.origin` is
 *   replaceable).
 * On the trusted host:
 * - `/framed`: heading "Framed login"; an iframe showing the untrusted host's /frame-login.
 * - `/elsewhere`: heading "Partner login"; a POST form to the untrusted host's /collect with
 *   textbox "Passphrase" (a password field) and button "Continue".
 * Any POST answers "Received"; anything else is 404.
 */

export interface EgressRequest {
  host: 'trusted' | 'untrusted';
  method: string;
  path: string;
  /** The query string and body as they arrived. */
  query: string;
  body: string;
}

export interface EgressSite {
  trustedUrl: string;
  untrustedUrl: string;
  /** What the untrusted host received since the last `reset`. */
  untrustedReceived(): EgressRequest[];
  reset(): void;
  close(): Promise<void>;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><main>${body}</main></body></html>`;
}

const ORDER = page(
  'Order form',
  `<h1>Order form</h1>
<form id="order" method="post" action="/order">
  <label for="note">Note</label> <input id="note" name="note">
  <button type="submit">Place order</button>
  <button type="button" onclick="document.getElementById('order').submit()">Send now</button>
  <div role="button" tabindex="0" onclick="document.getElementById('order').requestSubmit()">Confirm</div>
</form>`,
);

const FIND = page(
  'Find',
  `<h1>Find</h1>
<form method="get" action="/find" role="search">
  <input type="search" name="q" aria-label="Search"> <button type="submit">Go</button>
</form>`,
);

const frameLogin = (trustedUrl: string) =>
  page(
    'Sign in',
    `<script>self.origin = ${JSON.stringify(trustedUrl)};</script>
<form method="post" action="/frame-login">
  <label for="secret">Secret</label> <input id="secret" name="secret" type="password">
  <button type="submit">Sign in</button>
</form>
<label for="pin">PIN</label> <input id="pin" type="password" oninput="fetch('/pin', { method: 'POST', body: this.value })">`,
  );

const framed = (untrustedUrl: string) =>
  page(
    'Framed login',
    `<h1>Framed login</h1><iframe title="Sign-in frame" src="${untrustedUrl}/frame-login" width="600" height="300"></iframe>`,
  );

const elsewhere = (untrustedUrl: string) =>
  page(
    'Partner login',
    `<h1>Partner login</h1>
<form method="post" action="${untrustedUrl}/collect">
  <label for="passphrase">Passphrase</label> <input id="passphrase" name="passphrase" type="password">
  <button type="submit">Continue</button>
</form>`,
  );

export async function startEgressSite(): Promise<EgressSite> {
  const log: EgressRequest[] = [];
  let untrustedUrl = '';
  let trustedUrl = '';
  const pages: Record<EgressRequest['host'], Record<string, () => string>> = {
    trusted: { '/framed': () => framed(untrustedUrl), '/elsewhere': () => elsewhere(untrustedUrl) },
    untrusted: { '/order': () => ORDER, '/find': () => FIND, '/frame-login': () => frameLogin(trustedUrl) },
  };
  const serve = (host: EgressRequest['host']) =>
    http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://site');
        const method = req.method ?? 'GET';
        log.push({ host, method, path: url.pathname, query: url.search, body: Buffer.concat(chunks).toString() });
        const html = method === 'POST' ? page('Received', '<h1>Received</h1>') : pages[host][url.pathname]?.();
        res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
        res.end(html ?? page('Not found', '<h1>Not found</h1>'));
      });
    });
  const servers = [serve('trusted'), serve('untrusted')];
  trustedUrl = await listen(servers[0]!, FIXTURE_HOST);
  untrustedUrl = await listen(servers[1]!, OTHER_FIXTURE_HOST);
  return {
    trustedUrl,
    untrustedUrl,
    untrustedReceived: () => log.filter((entry) => entry.host === 'untrusted'),
    reset: () => {
      log.length = 0;
    },
    close: () => closeServers(servers),
  };
}
