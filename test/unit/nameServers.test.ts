import { loadConfig } from '../../src/config';

describe('DNS_SERVERS', () => {
  it('is empty by default: names resolve through the system', () => {
    expect(loadConfig({}).dnsServers).toEqual([]);
  });

  it('takes IP addresses, with ports, IPv6 in brackets when it has one', () => {
    expect(loadConfig({ DNS_SERVERS: '10.0.0.2, 127.0.0.1:5353,::1,[fd00::53]:53' }).dnsServers).toEqual([
      '10.0.0.2',
      '127.0.0.1:5353',
      '::1',
      '[fd00::53]:53',
    ]);
  });

  it.each(['resolver.example', '10.0.0.2:0', '10.0.0.2:65536', '[fd00::53]', '10.0.0.2:53:53', 'fd00::53:53x'])(
    'refuses %s at start, naming the variable',
    (server) => {
      expect(() => loadConfig({ DNS_SERVERS: server })).toThrow(/DNS_SERVERS/);
    },
  );
});
