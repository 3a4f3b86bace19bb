import { BadRequestError } from '../errors.js';
import { deleteProfile, listProfiles, showProfile } from '../operations/profiles.js';
import type { Services } from '../operations/services.js';
import type { ProfileSummary } from '../jobs/stores/browser-state/profile-store.js';
import { OPEN_CALLER } from '../tenants/tenant.js';

export const PROFILES_HELP =
  'pagewright profiles list | show NAME | delete NAME [--api URL] [--json]: the stored browser profiles ' +
  '(names, dates, cookie counts and domains; never a cookie). A running service holds DATA_DIR: use --api.';

function line(p: ProfileSummary): string {
  return `${p.name}\t${p.cookies} cookies\t${p.domains.join(',') || '-'}\tupdated ${p.updatedAt}\texpires ${p.expiresAt}\ttenant ${p.tenant}`;
}

/**
 * `pagewright profiles list|show NAME|delete NAME`: in this process (the DATA_DIR store) or, with `call`
 * (`--api`), through a running service's routes.
 */
export async function profilesCommand(
  positionals: string[],
  opts: { call?: (method: 'GET' | 'DELETE', route: string) => Promise<unknown>; json: boolean },
  local: () => Promise<{ services: Services; close: () => Promise<void> }>,
): Promise<number> {
  const [action, name, ...rest] = positionals;
  const named = action === 'show' || action === 'delete';
  if (
    !['list', 'show', 'delete'].includes(action ?? '') ||
    named !== (name !== undefined) ||
    rest.length > 0
  ) {
    throw new BadRequestError('usage: pagewright profiles list | show NAME | delete NAME');
  }
  const route = `/api/v1/profiles${name ? `/${encodeURIComponent(name)}` : ''}`;
  let result: unknown;
  if (opts.call) {
    result = await opts.call(action === 'delete' ? 'DELETE' : 'GET', route);
  } else {
    const { services, close } = await local();
    try {
      // The DATA_DIR store read in this process: every tenant's profiles, as an operator sees them.
      if (action === 'list')
        result = { success: true, profiles: await listProfiles(services.profiles, OPEN_CALLER) };
      else if (action === 'show')
        result = { success: true, profile: await showProfile(services.profiles, name!, OPEN_CALLER) };
      else {
        await deleteProfile(services.profiles, name!, OPEN_CALLER);
        result = { success: true };
      }
    } finally {
      await close();
    }
  }
  const r = result as { profiles?: ProfileSummary[]; profile?: ProfileSummary };
  if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (r.profiles) process.stdout.write(r.profiles.map((p) => `${line(p)}\n`).join(''));
  else if (r.profile) process.stdout.write(`${line(r.profile)}\n`);
  else process.stdout.write(`deleted ${name}\n`);
  return 0;
}
