import { NAME_ZONE } from './nameServer';

/**
 * The address-policy battery's table (test/e2e/addressPolicy.test.ts, and the research path in
 * test/e2e/research.test.ts): internal addresses in every spelling, as URL hosts with ports.
 */

/** Every spelling of an address on this machine's loopback, aimed at the canary's port. */
export function loopbackSpellings(port: number): string[] {
  return [
    `127.0.0.1:${port}`,
    `127.1:${port}`,
    `0x7f.0.0.1:${port}`,
    `0177.0.0.1:${port}`,
    `2130706433:${port}`,
    `0x7f000001:${port}`,
    `localhost:${port}`,
    `LocalHost.:${port}`,
    `sub.localhost:${port}`,
    `[::1]:${port}`,
    `[0:0:0:0:0:0:0:1]:${port}`,
    `[::ffff:127.0.0.1]:${port}`,
    `[::ffff:7f00:1]:${port}`,
    `[::127.0.0.1]:${port}`,
    `[64:ff9b::7f00:1]:${port}`,
    `[2002:7f00:1::1]:${port}`,
    `a-127-0-0-1.${NAME_ZONE}:${port}`,
    `A-127-0-0-1.${NAME_ZONE.toUpperCase()}:${port}`,
    `aaaa--1.${NAME_ZONE}:${port}`,
    `aaaa--ffff-7f00-1.${NAME_ZONE}:${port}`,
  ];
}

/**
 * One spelling of each kind, for the paths where each costs a browser's navigation: the URL
 * parser has made every numeric IPv4 form and every case of a name the same request before any
 * code of ours sees it. (Address literals elsewhere are judged by the same code as loopback's.)
 */
export const oneOfEachKind = (spellings: string[]) =>
  spellings.filter((spelling) => !/^(127\.1:|0x|0177|2130706433|LocalHost|A-|\[0:0)/.test(spelling));

/** Internal addresses that are not on this machine: refused, though nothing could answer. */
export const ELSEWHERE = [
  '10.0.0.5',
  '172.16.3.4',
  '192.168.1.1',
  '100.64.0.1',
  '169.254.169.254',
  '0.0.0.0',
  '[fd00::1]',
  '[fe80::1]',
  '[::ffff:169.254.169.254]',
  'metadata.google.internal',
  'metadata',
  'printer.local',
  `a-10-0-0-5.${NAME_ZONE}`,
  `a-169-254-169-254.${NAME_ZONE}`,
  `a-100-64-0-1.${NAME_ZONE}`,
  `aaaa-fd00--1.${NAME_ZONE}`,
];
