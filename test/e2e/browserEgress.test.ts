import dgram from 'node:dgram';
import net from 'node:net';
import { post } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';

/**
 * Nothing a rendered page does may leave Chromium other than through the guard proxy: these
 * listeners on loopback (internal, so the proxy refuses them) stand where a page's script aims.
 */
interface Listeners {
  port: number;
  datagrams: string[];
  connections: number;
  reset(): void;
  close(): Promise<void>;
}

async function startListeners(): Promise<Listeners> {
  const datagrams: string[] = [];
  let connections = 0;
  const udp4 = dgram.createSocket('udp4');
  const udp6 = dgram.createSocket({ type: 'udp6', ipv6Only: true });
  for (const socket of [udp4, udp6])
    socket.on('message', (msg, from) => datagrams.push(`${msg.length} bytes from ${from.address}`));
  await new Promise<void>((resolve) => udp4.bind(0, '127.0.0.1', resolve));
  const port = udp4.address().port;
  await new Promise<void>((resolve) => udp6.bind(port, '::1', resolve));
  // The same port over TCP, for TURN over TCP and anything else that would connect directly.
  const tcp = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', resolve));
  return {
    port,
    datagrams,
    get connections() {
      return connections;
    },
    reset: () => {
      datagrams.length = 0;
      connections = 0;
    },
    close: async () => {
      udp4.close();
      udp6.close();
      await new Promise((resolve) => tcp.close(resolve));
    },
  };
}

/** ICE gathering starts once a local description is set; the data channel gives the offer something to carry. */
const peerConnectionPage = (
  iceServers: unknown[],
) => `<html><head><title>Call</title></head><body><article><h1>Call</h1>
<p>${'A page that opens a peer connection as soon as it loads, aiming its servers at loopback. '.repeat(4)}</p></article>
<script>
const pc = new RTCPeerConnection({ iceServers: ${JSON.stringify(iceServers)} });
pc.createDataChannel('probe');
pc.createOffer().then((offer) => pc.setLocalDescription(offer));
</script></body></html>`;

let listeners: Listeners;
let fixtures: FixtureServer;

beforeAll(async () => {
  listeners = await startListeners();
  const port = listeners.port;
  fixtures = await startFixtureServer({
    '/stun': html(
      peerConnectionPage([
        { urls: [`stun:127.0.0.1:${port}`, `stun:[::1]:${port}`, `stun:stun-probe.example:${port}`] },
        {
          urls: [`turn:127.0.0.1:${port}?transport=udp`, `turn:[::1]:${port}?transport=udp`],
          username: 'u',
          credential: 'p',
        },
      ]),
    ),
    '/turn-tcp': html(
      peerConnectionPage([{ urls: [`turn:127.0.0.1:${port}?transport=tcp`], username: 'u', credential: 'p' }]),
    ),
    '/webtransport': html(`<html><head><title>Transport</title></head><body><article><h1>Transport</h1>
<p>${'A page that opens a WebTransport session, which runs over QUIC, to loopback. '.repeat(4)}</p></article>
<script>new WebTransport('https://127.0.0.1:${port}/').ready.catch(() => undefined);</script></body></html>`),
    '/service-worker': html(`<html><head><title>Offline app</title></head><body><article><h1>Offline app</h1>
<p>${'A page that installs a service worker, whose requests the render would not see. '.repeat(4)}</p></article>
<script>navigator.serviceWorker.register('/sw.js');</script></body></html>`),
    '/sw.js': html('self.addEventListener("fetch", () => undefined);', 'text/javascript'),
  });
});

beforeEach(() => listeners.reset());

afterAll(async () => {
  await fixtures.close();
  await listeners.close();
});

const renderMax = (path: string) =>
  post<{ content: string }>('/extract/markdown', { url: fixtures.url(path), effort: 'max', nocache: true });
/** A render closes its context when it answers; stragglers would still arrive in this window. */
const afterWindow = () => new Promise((resolve) => setTimeout(resolve, 1000));

describe('browser egress', () => {
  it('sends no UDP from WebRTC: STUN and TURN over UDP, IPv4, IPv6 and by name', async () => {
    const res = await renderMax('/stun');
    await afterWindow();
    expect(listeners.datagrams).toEqual([]);
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('opens a peer connection');
  });

  it('sends TURN over TCP through the guard proxy, which refuses loopback', async () => {
    const res = await renderMax('/turn-tcp');
    await afterWindow();
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'access to internal resources is not allowed' });
    expect(listeners.connections).toBe(0);
    expect(listeners.datagrams).toEqual([]);
  });

  it('sends no QUIC from WebTransport', async () => {
    const res = await renderMax('/webtransport');
    await afterWindow();
    expect(listeners.datagrams).toEqual([]);
    expect(listeners.connections).toBe(0);
    expect(res.status).toBe(200);
  });

  it('lets no page install a service worker', async () => {
    const res = await renderMax('/service-worker');
    expect(res.status).toBe(200);
    expect(fixtures.hits.get('/sw.js')).toBeUndefined();
  });
});
