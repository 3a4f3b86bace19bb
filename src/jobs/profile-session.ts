import { CookieJarHandle } from '../engines/cookie-jar.js';
import { NotFoundError } from '../errors.js';
import type { ProfileOption } from '../schemas/profile.js';
import type { Profiles } from './stores/browser-state/profile-store.js';

/**
 * Runs `use` with a cookie jar started from the profile `option` names (none without a profile): a lone scrape
 * gets a jar of its own, a crawl or a batch one jar for the whole job (every page of it, both engines, this
 * process). With `saveChanges` the jar is written back once `use` succeeded: after the scrape, at the end of
 * the job. A profile that does not exist starts empty when it is to be saved, and is a 404 otherwise (a
 * misspelt name must not crawl logged out without a word).
 */
export async function withProfile<T>(
  profiles: Profiles | undefined,
  option: ProfileOption | undefined,
  use: (cookies: CookieJarHandle | undefined) => Promise<T>,
): Promise<T> {
  if (!option || !profiles) return use(undefined);
  const state = await profiles.state(option.name);
  if (state === null && !option.saveChanges) {
    throw new NotFoundError(
      `profile.name: no profile '${option.name}' on this server (save one with saveChanges: true)`,
    );
  }
  const jar = new CookieJarHandle(state ?? undefined);
  const result = await use(jar);
  if (option.saveChanges) await profiles.save(option.name, jar.state());
  return result;
}
