import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  BadRequestError,
  BodyTooLargeError,
  NotFoundError,
  UnsupportedMediaTypeError,
  toAppError,
} from './errors.js';

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** '/formats/0' -> 'formats[0]'; '' -> the context ('body'). */
function fieldName(instancePath: string, context: string): string {
  if (instancePath === '') return context;
  return instancePath
    .slice(1)
    .split('/')
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
}

/** One readable sentence naming the field, from the first Ajv error. */
export function describeValidation(issue: ValidationIssue, context: string): string {
  const field = fieldName(issue.instancePath, context);
  const p = issue.params;
  switch (issue.keyword) {
    case 'required':
      return `${field === context ? '' : `${field}: `}missing required field '${String(p.missingProperty)}'`;
    case 'additionalProperties':
      return `unknown field '${String(p.additionalProperty)}'${field === context ? '' : ` in ${field}`}`;
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `${field} must be ${String(p.type)}`;
    case 'const':
      return `${field} must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return `${field} ${issue.message ?? 'is invalid'}`;
  }
}

/** Maps framework errors (validation, body parsing) onto our hierarchy. */
function fromFastify(err: FastifyError): AppError | null {
  if (err.validation && err.validation.length > 0) {
    const issue = err.validation[0] as unknown as ValidationIssue;
    return new BadRequestError(describeValidation(issue, err.validationContext ?? 'body'));
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

/** The single place where errors become HTTP responses. */
export function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const e = err instanceof AppError ? err : (fromFastify(err) ?? toAppError(err));
  if (e.code === 'INTERNAL') req.log.error({ err }, e.code);
  else req.log.info({ code: e.code, status: e.status }, e.message);
  if (e.status === 503) void reply.header('retry-after', '5');
  void reply.code(statusFor(req, e.status)).send({ success: false, code: e.code, error: e.message });
}

/**
 * Firecrawl's routes answer a target's failure (our 502: unreachable, too large, too many redirects) with
 * 500 as Firecrawl does; its SDK retries a 502 three times, fetching the failing page again each time.
 */
function statusFor(req: FastifyRequest, status: number): number {
  const firecrawl = req.url.startsWith('/v1/') || req.url.startsWith('/v2/');
  return firecrawl && status === 502 ? 500 : status;
}

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply): void {
  const e = new NotFoundError(`No route ${req.method} ${req.url.split('?')[0]}`);
  void reply.code(e.status).send({ success: false, code: e.code, error: e.message });
}
