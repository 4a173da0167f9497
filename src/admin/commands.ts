import type { Organization, Store } from '../billing/store';

/**
 * The admin commands (`npm run admin -- <command>`), against the store the API uses, so they work
 * while the service runs: a key revoked here is refused by every API replica within KEY_CACHE_MS.
 */

export const USAGE = [
  'usage: webloom-admin <command> [--json]',
  '  org create ORG',
  '  org list',
  '  key create ORG              prints the new key, once',
  '  key list ORG',
  '  key revoke KEY_ID',
  '  credits grant ORG AMOUNT',
  '  credits show ORG            the balance and the recent ledger',
  '  limits set ORG [--per-minute N] [--streams N]   a value of "default" clears it',
].join('\n');

export class UsageError extends Error {}

/** What a command answers: the JSON for scripts, and lines for a terminal. */
export interface Answer {
  json: unknown;
  text: string[];
}

export interface CommandLine {
  words: string[];
  perMinute?: string;
  streams?: string;
}

function wholeNumber(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value) || Number(value) === 0) throw new UsageError(`${what} must be a positive whole number`);
  return Number(value);
}

function limit(value: string | undefined, what: string): number | null | undefined {
  if (value === undefined) return undefined;
  return value === 'default' ? null : wholeNumber(value, what);
}

const orgLine = (org: Organization): string =>
  `${org.name}  balance ${org.balance}  per-minute ${org.requestsPerMinute ?? 'default'}  streams ${
    org.concurrentStreams ?? 'default'
  }`;

export async function runCommand(store: Store, line: CommandLine): Promise<Answer> {
  const [noun, verb, ...args] = line.words;
  const one = (): string => {
    if (args.length !== 1) throw new UsageError(USAGE);
    return args[0]!;
  };
  switch (`${noun} ${verb}`) {
    case 'org create': {
      const org = await store.createOrganization(one());
      return { json: org, text: [`created organization ${org.name}`] };
    }
    case 'org list': {
      const orgs = await store.organizations();
      return { json: orgs, text: orgs.length ? orgs.map(orgLine) : ['no organizations'] };
    }
    case 'key create': {
      const created = await store.createKey(one());
      return {
        json: { key: created.key, org: created.organization, id: created.id },
        text: [
          `key ${created.id} for ${created.organization}:`,
          `  ${created.key}`,
          'Keep it now: it is stored hashed and cannot be shown again.',
        ],
      };
    }
    case 'key list': {
      const keys = await store.keys(one());
      return {
        json: keys,
        text: keys.length
          ? keys.map(
              (key) =>
                `${key.id}  ${key.hint}...  created ${key.createdAt}${key.revokedAt ? `  revoked ${key.revokedAt}` : ''}`,
            )
          : ['no keys'],
      };
    }
    case 'key revoke': {
      const key = await store.revokeKey(one());
      return { json: key, text: [`revoked ${key.id} of ${key.organization}`] };
    }
    case 'credits grant': {
      if (args.length !== 2) throw new UsageError(USAGE);
      const balance = await store.grant(args[0]!, wholeNumber(args[1]!, 'AMOUNT'));
      return { json: { org: args[0], balance }, text: [`${args[0]} now has ${balance} credits`] };
    }
    case 'credits show': {
      const org = await store.organization(one());
      const ledger = await store.ledger(org.name);
      return {
        json: { org: org.name, balance: org.balance, ledger },
        text: [
          `${org.name}: ${org.balance} credits`,
          ...ledger.map((entry) =>
            `  ${entry.createdAt}  ${entry.kind.padEnd(6)} ${String(entry.amount).padStart(9)}  ${
              entry.operation ?? ''
            } ${entry.runKey ?? ''} ${entry.note ?? ''}`.trimEnd(),
          ),
        ],
      };
    }
    case 'limits set': {
      const limits = {
        requestsPerMinute: limit(line.perMinute, '--per-minute'),
        concurrentStreams: limit(line.streams, '--streams'),
      };
      if (limits.requestsPerMinute === undefined && limits.concurrentStreams === undefined)
        throw new UsageError('limits set needs --per-minute N, --streams N or both');
      const org = await store.setLimits(one(), limits);
      return { json: org, text: [orgLine(org)] };
    }
    default:
      throw new UsageError(USAGE);
  }
}
