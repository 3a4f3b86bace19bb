import { startProcess } from './app/start.js';

// `npm run worker`: works jobs from Redis (REDIS_URL). It answers no API; with METRICS_PORT it serves its
// own /metrics (and /health) there, so Prometheus can scrape every process of a fleet.
const { app, config } = await startProcess('worker');
const metricsPort = config.redis?.metricsPort ?? null;
if (metricsPort !== null) {
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0];
    if (path !== '/metrics' && path !== '/health') return reply.code(404).send();
  });
  await app.listen({ host: config.host, port: metricsPort });
} else {
  await app.ready();
}
app.log.info({ workers: config.redis?.workers, metricsPort }, 'worker started');
