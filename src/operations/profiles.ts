import { BadRequestError, NotFoundError } from '../errors.js';
import type { ProfileSummary, Profiles } from '../jobs/stores/browser-state/profile-store.js';
import { listedOwner } from '../tenants/tenant.js';
import type { Caller } from '../tenants/tenant.js';

/** The profiles a caller lists: its tenant's; an operator's, every tenant's or the one `tenant` names. */
export function listProfiles(profiles: Profiles, caller: Caller, tenant?: string): Promise<ProfileSummary[]> {
  return profiles.list(listedOwner(caller, tenant) ?? null);
}

/**
 * The tenant whose profile `name` a request means: its own (`tenant` is an operator's choice only); for an
 * operator, the one `tenant` names, or else the one tenant holding that name (a 400 asks which when several
 * do). Another tenant's profile is never looked at for a tenant: it is answered exactly as a missing one.
 */
async function ownerOfProfile(profiles: Profiles, name: string, caller: Caller, tenant?: string) {
  const owner = listedOwner(caller, tenant);
  if (owner !== undefined) return owner;
  const holders = (await profiles.list(null)).filter((p) => p.name === name).map((p) => p.tenant);
  if (holders.length === 0) throw new NotFoundError(`No profile '${name}'`);
  if (holders.length > 1) {
    throw new BadRequestError(
      `Profile '${name}' is held by ${holders.length} tenants (${holders.join(', ')}): name one with ?tenant=`,
    );
  }
  return holders[0]!;
}

/** One profile's summary (never a cookie's value); 404 when there is none the caller may see. */
export async function showProfile(
  profiles: Profiles,
  name: string,
  caller: Caller,
  tenant?: string,
): Promise<ProfileSummary> {
  const summary = await profiles.summary(await ownerOfProfile(profiles, name, caller, tenant), name);
  if (!summary) throw new NotFoundError(`No profile '${name}'`);
  return summary;
}

/** Deletes a profile; 404 when there was none the caller may see. */
export async function deleteProfile(
  profiles: Profiles,
  name: string,
  caller: Caller,
  tenant?: string,
): Promise<void> {
  const owner = await ownerOfProfile(profiles, name, caller, tenant);
  if (!(await profiles.delete(owner, name))) throw new NotFoundError(`No profile '${name}'`);
}
