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
  ])('blocks %s', (address) => {
    expect(policy.isAllowedAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:93.184.215.14', '64:ff9b::808:808'])(
    'allows %s',
    (address) => {
      expect(policy.isAllowedAddress(address)).toBe(true);
    },
  );

  it('honours CIDR ranges, single addresses and names in the allowlist', () => {
    const open = new AddressPolicy(['10.9.0.0/16', '127.0.0.2', 'fixtures.test']);
    expect(open.isAllowedAddress('10.9.4.4')).toBe(true);
    expect(open.isAllowedAddress('10.8.4.4')).toBe(false);
    expect(open.isAllowedAddress('127.0.0.2')).toBe(true);
    expect(open.isAllowedAddress('127.0.0.1')).toBe(false);
    expect(() => open.checkHostLiteral(new URL('http://fixtures.test/'))).not.toThrow();
  });
});
