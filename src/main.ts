import { startProcess } from './app/start.js';

// `npm start`: the HTTP API (and, unless WORKERS=0 with REDIS_URL, a worker of jobs too).
const { app, config } = await startProcess('api');
await app.listen({ host: config.host, port: config.port });
