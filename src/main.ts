import { ConfigError, loadConfig } from './config.js';
import { buildApp } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const app = await buildApp({ config });
  if ('error' in config.extractConcurrency) {
    app.log.error(
      `Configuration error: ${config.extractConcurrency.error}; extract requests will fail until it is fixed`,
    );
  }
  // Stop accepting, let in-flight requests finish (or their own timeouts end them), close the workers and
  // the browser. Past SHUTDOWN_TIMEOUT_MS the process exits anyway; Playwright kills its browser on exit.
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
  await app.listen({ host: config.host, port: config.port });
}

void main();
