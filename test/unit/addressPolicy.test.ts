import { AddressPolicy } from '../../src/net/addressPolicy';

describe('AddressPolicy', () => {
  const policy = new AddressPolicy();

  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.31.255.1',
    '192.168.0.1',
    '169.254.169.254',
    '100.100.1.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'ff02::1',
    // IPv4-compatible (::/96), IPv4-translated, NAT64 and 6to4 forms of internal IPv4 addresses.
    '::7f00:1',
    '::127.0.0.1',
    '::a00:1',
    '::a9fe:a9fe',
    '::ffff:0:7f00:1',
    '64:ff9b::a9fe:a9fe',
    '2002:a00:1::1',
    '2002:c0a8:101:5::1',
    // NAT64's local-use prefix and Teredo reach whatever the local network maps them to.
    '64:ff9b:1::808:808',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    // Outside 2000::/3 nothing is global unicast.
    '::1:0:0:1',
    '100::1',
    '4000::1',
  ])('blocks %s', (address) => {
    expect(policy.isAllowedAddress(address)).toBe(false);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '2606:4700::1111',
    '::ffff:93.184.215.14',
    '64:ff9b::808:808',
    '::808:808',
    '2002:808:808::1',
  ])('allows %s', (address) => {
    expect(policy.isAllowedAddress(address)).toBe(true);
  });

  it('honours CIDR ranges, single addresses and names in the allowlist', () => {
    const open = new AddressPolicy(['10.9.0.0/16', '127.0.0.2', 'fixtures.test']);
    expect(open.isAllowedAddress('10.9.4.4')).toBe(true);
    expect(open.isAllowedAddress('10.8.4.4')).toBe(false);
    expect(open.isAllowedAddress('127.0.0.2')).toBe(true);
    expect(open.isAllowedAddress('127.0.0.1')).toBe(false);
    // An IPv6 form of an allowed IPv4 address is that address.
    expect(open.isAllowedAddress('::7f00:2')).toBe(true);
    expect(open.isAllowedAddress('::ffff:127.0.0.2')).toBe(true);
    expect(open.isAllowedAddress('::7f00:1')).toBe(false);
    expect(() => open.checkHostLiteral(new URL('http://fixtures.test/'))).not.toThrow();
  });

  it('refuses URLs whose host is an IPv6 form of an internal IPv4 address', () => {
    for (const host of ['[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[64:ff9b::10.0.0.1]', '[2002:7f00:1::]']) {
      expect(() => policy.checkHostLiteral(new URL(`http://${host}:8080/`))).toThrow(/internal/);
    }
  });
});
