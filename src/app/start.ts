import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from '../config/config.js';
import type { Config } from '../config/config.js';
import { pingRedis } from '../lib/redis-ping.js';
import { safeUrl } from '../jobs/job-engine.js';
import { buildApp } from './server.js';

/**
 * What `npm start` and `npm run worker` share: configuration (a clear message and exit 1 when it is wrong,
 * or when REDIS_URL is set and Redis does not answer), the app, and a graceful stop on SIGTERM/SIGINT.
 */
export async function startProcess(
  role: 'api' | 'worker',
): Promise<{ app: FastifyInstance; config: Config }> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  if (role === 'worker' && !config.redis) {
    console.error('Configuration error: `npm run worker` works jobs from Redis: set REDIS_URL');
    process.exit(1);
  }
  if (role === 'worker' && config.redis?.workers === 0) {
    // WORKERS=0 is the API's setting (a process that serves the API only), easily shared through one
    // environment file: a worker with it would take no job and say nothing.
    console.error(
      'Configuration error: WORKERS=0 makes a process take no job, so this worker would have nothing to do: ' +
        'unset WORKERS (or set it above 0) for `npm run worker`',
    );
    process.exit(1);
  }
  if (config.redis) {
    const problem = await pingRedis(config.redis.url);
    if (problem !== null) {
      console.error(`Cannot reach Redis at ${safeUrl(config.redis.url)} (REDIS_URL): ${problem}`);
      process.exit(1);
    }
  }
  const app = await buildApp({ config });
  if ('error' in config.extractConcurrency) {
    app.log.error(
      `Configuration error: ${config.extractConcurrency.error}; extract requests will fail until it is fixed`,
    );
  }
  // Stop accepting, let in-flight work finish (or their own timeouts end them), close the workers and the
  // browser. Past SHUTDOWN_TIMEOUT_MS the process exits anyway; Playwright kills its browser on exit.
  const shutdown = (signal: string): void => {
    app.log.info({ signal }, 'shutting down');
    setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return { app, config };
}
