import { startProcess } from './start.js';

// `npm run worker`: works jobs from Redis (REDIS_URL) with no HTTP listener.
const { app, config } = await startProcess('worker');
await app.ready();
app.log.info({ workers: config.redis?.workers }, 'worker started');
