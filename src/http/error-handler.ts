import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeValidation, validationIssue } from '../lib/validation-message.js';
import type { ValidationIssue } from '../lib/validation-message.js';
import {
  AppError,
  BadRequestError,
  BodyTooLargeError,
  NotFoundError,
  UnsupportedMediaTypeError,
  toAppError,
} from '../errors.js';

/** Maps framework errors (validation, body parsing) onto our hierarchy. */
function fromFastify(err: FastifyError): AppError | null {
  if (err.validation && err.validation.length > 0) {
    const issues = err.validation as unknown as ValidationIssue[];
    const context = err.validationContext ?? 'body';
    const details = [validationIssue(issues, context)];
    return new BadRequestError(describeValidation(issues[0]!, context), { details });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BadRequestError(`Request body is not valid JSON: ${err.message}`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new BodyTooLargeError('Request body is too large');
    case 'FST_REQ_FILE_TOO_LARGE':
      return new BodyTooLargeError('The uploaded file is larger than MAX_RESPONSE_BYTES');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaTypeError('Content-Type must be application/json');
    default:
      break;
  }
  if (err instanceof SyntaxError)
    return new BadRequestError(`Request body is not valid JSON: ${err.message}`);
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new BadRequestError(err.message);
  }
  return null;
}

/** The answer's body for an error: `{success: false, code, error}` unless a surface says otherwise. */
export type ErrorBody = (e: AppError) => Record<string, unknown>;

const plainBody: ErrorBody = (e) => ({ success: false, code: e.code, error: e.message });

/**
 * Where errors become HTTP responses: one handler per surface, differing only in how a status is answered
 * (`answerStatus`) and what the body holds (`bodyOf`; by default `{success: false, code, error}`). 503s
 * carry Retry-After, and so does any error that knows when trying again may succeed (a tenant's limit).
 */
export function errorHandlerFor(
  answerStatus: (status: number) => number = (status) => status,
  bodyOf: ErrorBody = plainBody,
) {
  return async (err: FastifyError, req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    let e = err instanceof AppError ? err : (fromFastify(err) ?? toAppError(err));
    // A browser session another process holds: the call goes there, and its answer is the answer.
    const forwarding = req.server.sessionForwarding;
    const target = forwarding?.target(req, e);
    if (forwarding && target) {
      const failed = await forwarding.http(req, reply, target);
      if (!failed) return;
      e = failed;
    }
    if (e.code === 'INTERNAL') req.log.error({ err }, e.code);
    else req.log.info({ code: e.code, status: e.status }, e.message);
    const retryAfter = e.retryAfterSeconds ?? (e.status === 503 ? 5 : null);
    if (retryAfter !== null) void reply.header('retry-after', String(retryAfter));
    void reply.code(answerStatus(e.status)).send(bodyOf(e));
  };
}

/** The native API's handler: each error's own status. */
export const errorHandler = errorHandlerFor();

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply): void {
  const e = new NotFoundError(`No route ${req.method} ${req.url.split('?')[0]}`);
  void reply.code(e.status).send({ success: false, code: e.code, error: e.message });
}
