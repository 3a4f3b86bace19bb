/** The slice of pino's logger that services use (Fastify's `app.log` and `req.log` satisfy it). */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
