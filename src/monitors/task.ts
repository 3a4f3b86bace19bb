import type { JobSurfacePorts } from '../jobs/job-engine.js';
import { runCheck } from './check-run.js';
import type { CheckDeps } from './check-run.js';
import type { CheckJobRequest } from './monitors.js';

/**
 * The job engine's ports with monitor checks added: `deps` is read when a check runs (the services it calls are
 * built after the job engine).
 */
export function withMonitorChecks(ports: JobSurfacePorts, deps: () => CheckDeps): JobSurfacePorts {
  return {
    ...ports,
    tasks: {
      ...ports.tasks,
      monitor_check: async (request, signal) => {
        const { monitorId, checkId } = request as CheckJobRequest;
        await runCheck(monitorId, checkId, signal, deps());
        return null;
      },
    },
  };
}
