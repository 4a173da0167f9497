import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import ipaddr from 'ipaddr.js';
import { newUlid } from '../ids';
import type { Store } from '../billing/store';
import type { RateLimitSettings } from '../config';
import {
  ORGANIZATION_LIMITS_CACHE_MS,
  STREAM_SLOT_CHECK_MS,
  STREAM_SLOT_LEASE_MS,
  STREAM_SLOT_RETRY_AFTER_S,
} from '../config/timeouts';
import { RateLimitedError } from '../errors';
import type { Logger } from '../telemetry/logger';
import { closeBackend, type LimitBackend } from './backend';
import { RequestCounter, type Count, type RequestWindow } from './requestCounter';
import { streamSlots, type StreamSlots } from './streamSlots';

export type { Count, RequestWindow } from './requestCounter';

/** An organization's limits: its own from the store, else the service's defaults. */
interface Limits {
  requestsPerMinute: number;
  concurrentStreams: number;
}

/** Entries a process remembers at most, so a flood of distinct names or addresses cannot grow them without bound. */
const MAX_REMEMBERED = 10_000;

/** Sets `key` in `map`, first forgetting its oldest entry when it holds MAX_REMEMBERED. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** A stream slot taken for a request; `hold` it once its run has started, or `release` it. */
export interface StreamSlot {
  hold(workflowId: string): void;
  release(): void;
}

/**
 * Requests per minute and runs in flight per organization, and failed authentications per source
 * address: counted where every API replica sees them (src/limits/backend.ts).
 */
export class RateLimits {
  private readonly requests: RequestCounter;
  private readonly authFailures: RequestCounter;
  private readonly slots: StreamSlots;
  private readonly limits = new Map<string, { limits: Limits; until: number }>();
  /** Addresses past their limit of failures, until when: refused here without a round trip. */
  private readonly blocked = new Map<string, { until: number }>();
  /** Organizations a count found past their requests per minute: refused here without one (refusalOf). */
  private readonly refused = new Map<string, { limit: number; resetAt: number; until: number }>();
  private readonly watched = new Set<NodeJS.Timeout>();

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly backend: LimitBackend,
    private readonly store: Store | undefined,
    private readonly client: Client,
    private readonly logger: Logger,
  ) {
    this.requests = new RequestCounter(backend, 'requests');
    this.authFailures = new RequestCounter(backend, 'auth-failures');
    this.slots = streamSlots(backend, (err) =>
      this.logger.warn({ err }, 'the shared store of stream slots is out of reach: a slot of this process taken'),
    );
  }

  /** Counts one request of the organization. */
  async countRequest(organization: string): Promise<Count> {
    const { requestsPerMinute } = await this.limitsOf(organization);
    return this.requests.count(organization, requestsPerMinute);
  }

  /**
   * The organization's refusal, for ORGANIZATION_LIMITS_CACHE_MS (or to the end of its window, if
   * sooner) after a count in this process found it past its requests per minute: its requests are
   * refused before any work (a body read, a cache lookup, a round trip to count them), as a count
   * would refuse them. Its limit is trusted here no longer, so a raised one takes effect as soon.
   */
  refusalOf(organization: string): Count | undefined {
    const refusal = this.refused.get(organization);
    if (!refusal) return undefined;
    const now = Date.now();
    if (refusal.until > now)
      return { allowed: false, limit: refusal.limit, remaining: 0, resetMs: refusal.resetAt - now };
    this.refused.delete(organization);
    return undefined;
  }

  /** Remembers a count that refused a request of the organization (see refusalOf). */
  noteCount(organization: string, count: Count): void {
    if (count.allowed) return;
    const now = Date.now();
    remember(this.refused, organization, {
      limit: count.limit,
      resetAt: now + count.resetMs,
      until: now + Math.min(count.resetMs, ORGANIZATION_LIMITS_CACHE_MS),
    });
  }

  /**
   * Where the organization's requests are counted, when that is the store: a cache hit's request
   * is then counted by the statement that charges it (Billing.countAndChargeCacheHit).
   */
  async requestWindow(organization: string): Promise<RequestWindow | undefined> {
    const { requestsPerMinute } = await this.limitsOf(organization);
    return this.requests.window(organization, requestsPerMinute);
  }

  /**
   * Whether the source address is refused for failing too often: every request from it, with
   * a good key or not, or a guess that hits would stand out among the 429s.
   */
  blockedFor(address: string): Count | undefined {
    const source = sourceOf(address);
    const block = this.blocked.get(source);
    if (!block) return undefined;
    const resetMs = block.until - Date.now();
    if (resetMs > 0) return { allowed: false, limit: this.settings.authFailuresPerMinute, remaining: 0, resetMs };
    this.blocked.delete(source);
    return undefined;
  }

  /** Counts a request with a missing or unknown key from the address. */
  async countAuthFailure(address: string): Promise<Count> {
    const source = sourceOf(address);
    const count = await this.authFailures.count(source, this.settings.authFailuresPerMinute);
    if (!count.allowed) {
      remember(this.blocked, source, { until: Date.now() + count.resetMs });
    }
    return count;
  }

  /** Takes one of the organization's stream slots; 429 when it has all its runs in flight. */
  async takeStreamSlot(organization: string): Promise<StreamSlot> {
    const { concurrentStreams } = await this.limitsOf(organization);
    const id = newUlid();
    if (!(await this.slots.take(organization, id, concurrentStreams, STREAM_SLOT_LEASE_MS)))
      throw new RateLimitedError(
        STREAM_SLOT_RETRY_AFTER_S,
        `${organization} has its ${concurrentStreams} research and automate runs in flight`,
      );
    let timer: NodeJS.Timeout | undefined;
    const release = (): void => {
      if (timer) {
        clearInterval(timer);
        this.watched.delete(timer);
      }
      this.slots
        .release(organization, id)
        .catch((err: unknown) => this.logger.warn({ err, organization }, 'releasing a stream slot failed'));
    };
    return {
      release,
      hold: (workflowId) => {
        let checking = false;
        timer = setInterval(() => {
          if (checking) return;
          checking = true;
          void this.runEnded(workflowId)
            .then((ended) => (ended ? release() : this.slots.renew(organization, id, STREAM_SLOT_LEASE_MS)))
            .catch((err: unknown) => this.logger.warn({ err, workflowId }, 'renewing a stream slot failed'))
            .finally(() => (checking = false));
        }, STREAM_SLOT_CHECK_MS);
        this.watched.add(timer);
      },
    };
  }

  private async runEnded(workflowId: string): Promise<boolean> {
    try {
      const { status } = await this.client.workflow.getHandle(workflowId).describe();
      return status.name !== 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return true;
      throw err;
    }
  }

  private async limitsOf(organization: string): Promise<Limits> {
    const now = Date.now();
    const known = this.limits.get(organization);
    if (known && known.until > now) return known.limits;
    this.limits.delete(organization);
    const own = await this.store?.organization(organization).catch(() => undefined);
    const limits = {
      requestsPerMinute: own?.requestsPerMinute ?? this.settings.requestsPerMinute,
      concurrentStreams: own?.concurrentStreams ?? this.settings.concurrentStreams,
    };
    remember(this.limits, organization, { limits, until: now + ORGANIZATION_LIMITS_CACHE_MS });
    return limits;
  }

  /**
   * Stops watching runs: their slots run out with their leases, after this process is gone, as
   * they would if it had died.
   */
  async close(): Promise<void> {
    for (const timer of this.watched) clearInterval(timer);
    this.watched.clear();
    await closeBackend(this.backend);
  }
}

/**
 * Whom failures are counted against: an IPv4 address, or an IPv6 address's /64, which one
 * subscriber usually holds whole and could otherwise walk through.
 */
export function sourceOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).toByteArray().slice(0, 8);
  return `${ipaddr.fromByteArray([...prefix, 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`;
}
