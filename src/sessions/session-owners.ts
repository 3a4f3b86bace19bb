import { SessionLimitError } from '../errors.js';
import type { SessionRecord } from '../jobs/stores/browser-state/session-store.js';

/** The tenant of callers without an API key, and of records written before tenants were recorded. */
export const DEFAULT_OWNER = 'default';

/**
 * MAX_SESSIONS_PER_KEY: a key's sessions in this process, counted when asked (`take` is synchronous, before the
 * request awaits anything), and its sessions other processes hold, read from their records.
 */
export class SessionOwners {
  private readonly owned = new Map<string, number>();

  constructor(private readonly max: number) {}

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
    const mine = this.owned.get(owner) ?? 0;
    if (mine > this.max) throw this.limit();
    const others = (await elsewhere()).filter((r) => (r.owner ?? DEFAULT_OWNER) === owner).length;
    if (mine + others > this.max) throw this.limit();
  }

  private limit(): SessionLimitError {
    return new SessionLimitError(
      `This API key has ${this.max} browser sessions open (MAX_SESSIONS_PER_KEY); end one first`,
    );
  }
}
