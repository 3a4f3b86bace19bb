import { toAppError } from '../errors.js';
import type { JobSurfacePorts } from '../jobs/job-engine.js';
import { runCheck } from './check-run.js';
import type { CheckDeps } from './check-run.js';
import type { CheckJobRequest } from './monitors.js';

/**
 * The job engine's ports with monitor checks added: `deps` is read when a check runs (the services it calls are
 * built after the job engine). A check whose run fails is recorded as failed with the reason (a stopped process
 * leaves it running, to be resumed).
 */
export function withMonitorChecks(ports: JobSurfacePorts, deps: () => CheckDeps): JobSurfacePorts {
  return {
    ...ports,
    tasks: {
      ...ports.tasks,
      monitor_check: async (request, { signal }) => {
        const { monitorId, checkId } = request as CheckJobRequest;
        const checkDeps = deps();
        try {
          await runCheck(monitorId, checkId, signal, checkDeps);
        } catch (err) {
          const e = toAppError(err);
          const reason = e.code === 'INTERNAL' ? 'Internal error' : e.message;
          if (!signal.aborted) await failCheck(monitorId, checkId, reason, checkDeps);
          throw err;
        }
        return null;
      },
    },
  };
}

/** Records the check as failed, if it is still under way (best effort: the store may be what failed). */
async function failCheck(monitorId: string, checkId: string, error: string, deps: CheckDeps): Promise<void> {
  try {
    const check = await deps.store.check(monitorId, checkId);
    if (!check || (check.status !== 'queued' && check.status !== 'running')) return;
    const now = Date.now();
    await deps.store.putCheck({ ...check, status: 'failed', finishedAt: now, updatedAt: now, error });
  } catch (err) {
    deps.log.warn(
      { monitorId, checkId, reason: toAppError(err).message },
      'monitor check failure not recorded',
    );
  }
}
