import { CookieJarHandle, mergeStates } from '../engines/cookie-jar.js';
import { NotFoundError } from '../errors.js';
import type { ProfileOption } from '../schemas/profile.js';
import type { Profiles } from './stores/browser-state/profile-store.js';

/** The 404 of a profile that is not there, the same whether no tenant has the name or another one does. */
export const noProfile = (name: string): NotFoundError =>
  new NotFoundError(`profile.name: no profile '${name}' on this server (save one with saveChanges: true)`);

/**
 * Runs `use` with a cookie jar started from `owner`'s profile `option` names (none without a profile): a lone
 * scrape gets a jar of its own, a crawl or a batch one jar for the whole job (every page of it, both engines,
 * this process). With `saveChanges` the jar's changes are written back as `owner`'s once `use` succeeded: after
 * the scrape, at the end of the job (of each process's share of it), merged into the profile as stored then. A profile that does not exist starts empty when it is to be saved, and is a
 * 404 otherwise (a misspelt name must not crawl logged out without a word). `owner` is the tenant the work is
 * for: another tenant's profile of that name is as absent as a missing one.
 */
export async function withProfile<T>(
  profiles: Profiles | undefined,
  option: ProfileOption | undefined,
  owner: string,
  use: (cookies: CookieJarHandle | undefined) => Promise<T>,
): Promise<T> {
  if (!option || !profiles) return use(undefined);
  const state = await profiles.state(owner, option.name);
  if (state === null && !option.saveChanges) throw noProfile(option.name);
  const jar = new CookieJarHandle(state ?? undefined);
  // As the jar writes it, so that what `use` left unchanged compares equal at the end.
  const base = jar.state();
  const result = await use(jar);
  if (option.saveChanges) {
    // Onto the profile as stored now: another share of the job (another process) may have saved meanwhile.
    const ours = jar.state();
    await profiles.update(owner, option.name, (stored) =>
      mergeStates(base, ours, stored ?? { cookies: [], origins: [] }),
    );
  }
  return result;
}
