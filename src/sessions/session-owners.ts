import { SessionLimitError } from '../errors.js';
import { limitText } from '../tenants/tenant.js';
import type { LimitsOf, TenantLimits } from '../tenants/tenant.js';
import type { SessionRecord } from '../jobs/stores/browser-state/session-store.js';

/** The tenant of callers without an API key, and of records written before tenants were recorded. */
export const DEFAULT_OWNER = 'default';

/**
 * MAX_SESSIONS_PER_TENANT: a tenant's sessions in this process, counted when asked (`take` is synchronous, before the
 * request awaits anything), and its sessions other processes hold, read from their records.
 */
export class SessionOwners {
  private readonly owned = new Map<string, number>();

  constructor(private readonly limits: LimitsOf) {}

  /** Counts one more session of `owner` in this process; `give` takes it back. */
  take(owner: string): void {
    this.owned.set(owner, (this.owned.get(owner) ?? 0) + 1);
  }

  give(owner: string): void {
    const left = (this.owned.get(owner) ?? 1) - 1;
    if (left > 0) this.owned.set(owner, left);
    else this.owned.delete(owner);
  }

  /** Throws the 429 when `owner`, counting its taken session, holds more than the cap; `elsewhere`: others' active records. */
  async check(owner: string, elsewhere: () => Promise<SessionRecord[]>): Promise<void> {
    const limits = this.limits(owner);
    const max = limits.sessions;
    const mine = this.owned.get(owner) ?? 0;
    if (mine > max) throw this.limit(owner, limits);
    const others = (await elsewhere()).filter((r) => (r.owner ?? DEFAULT_OWNER) === owner).length;
    if (mine + others > max) throw this.limit(owner, limits);
  }

  private limit(owner: string, limits: TenantLimits): SessionLimitError {
    return new SessionLimitError(
      `Tenant ${owner} has ${limits.sessions} browser sessions open, the most it may (${limitText('sessions', limits)}); end one first`,
    );
  }
}
