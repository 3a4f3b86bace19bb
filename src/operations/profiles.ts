import { NotFoundError } from '../errors.js';
import type { ProfileSummary, Profiles } from '../jobs/stores/browser-state/profile-store.js';

/** One profile's summary (never a cookie's value); 404 when there is none. */
export async function showProfile(profiles: Profiles, name: string): Promise<ProfileSummary> {
  const summary = await profiles.summary(name);
  if (!summary) throw new NotFoundError(`No profile '${name}'`);
  return summary;
}

/** Deletes a profile; 404 when there was none. */
export async function deleteProfile(profiles: Profiles, name: string): Promise<void> {
  if (!(await profiles.delete(name))) throw new NotFoundError(`No profile '${name}'`);
}
