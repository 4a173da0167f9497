import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

/**
 * A DNS server on loopback that the stack resolves page hosts with (`DNS_SERVERS`), so tests can
 * name hosts whose addresses they choose. Every answer is written in the name itself, under
 * `NAME_ZONE`, so any process can make one up without telling the server:
 * - `a-127-0-0-1.<zone>` has the IPv4 address 127.0.0.1;
 * - `aaaa--ffff-7f00-1.<zone>` has the IPv6 address ::ffff:7f00:1 (dashes for colons);
 * - `rebind-<anything>.<zone>` has `reachable` (an address the stack may reach) the first time it
 *   is asked, and 127.0.0.1 every time after: a name whose answer changes between the
 *   check of a URL and the connection to it.
 * Answers live for 0 seconds, so no resolver keeps one. Any other name does not exist.
 */
export const NAME_ZONE = 'dns.test';

export interface NameServer {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  address: string;
  /** How often a name has been asked for its IPv4 address. */
  asked(name: string): number;
  close(): Promise<void>;
}

/** Where a rebinding name points after its first answer. */
export const REBOUND_ADDRESS = '127.0.0.1';

function addressOf(name: string, type: string, timesAsked: number, reachable: string): string | undefined {
  const label = name.toLowerCase().slice(0, -(NAME_ZONE.length + 1));
  if (type === 'A' && /^a-\d{1,3}(-\d{1,3}){3}$/.test(label)) return label.slice(2).replace(/-/g, '.');
  if (type === 'AAAA' && label.startsWith('aaaa-')) return label.slice(5).replace(/-/g, ':');
  if (type === 'A' && label.startsWith('rebind-')) return timesAsked === 1 ? reachable : REBOUND_ADDRESS;
  return undefined;
}

export async function startNameServer(reachable: string): Promise<NameServer> {
  const asked = new Map<string, number>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, from) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    const inZone = name.endsWith(`.${NAME_ZONE}`);
    const times = question.type === 'A' ? (asked.get(name) ?? 0) + 1 : (asked.get(name) ?? 0);
    if (question.type === 'A') asked.set(name, times);
    const data = inZone ? addressOf(name, question.type, times, reachable) : undefined;
    const reply = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (inZone ? 0 : NXDOMAIN),
      questions: [question],
      answers: data ? [{ type: question.type as 'A', name: question.name, ttl: 0, data }] : [],
    });
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    asked: (name) => asked.get(name.toLowerCase()) ?? 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** RCODE 3 in the header's flags: the name does not exist. */
const NXDOMAIN = 3;
