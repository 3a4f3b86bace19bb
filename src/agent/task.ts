import type { JobSurfacePorts } from '../jobs/job-engine.js';
import type { AgentRequest } from './request.js';
import { runAgent } from './run.js';
import type { AgentRunDeps } from './run.js';

/**
 * The job engine's ports with the agent's runs added: `deps` is read when a run starts (the services it calls
 * are built after the job engine); null without the server's LLM, where no run is ever accepted.
 */
export function withAgentRuns(ports: JobSurfacePorts, deps: (() => AgentRunDeps) | null): JobSurfacePorts {
  if (!deps) return ports;
  return {
    ...ports,
    tasks: {
      ...ports.tasks,
      agent: (request, run) => runAgent(request as AgentRequest, run, deps()),
    },
  };
}
