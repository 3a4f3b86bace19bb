/**
 * The one error hierarchy of the service. Every failure that reaches a client is an AppError;
 * `code` is part of the public contract (README: error catalogue) and is never renamed.
 * `retryable` says whether another engine or a later attempt could help.
 */
export abstract class AppError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  readonly retryable: boolean = false;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  readonly code = 'BAD_REQUEST';
  readonly status = 400;
}

/** A request that asks for something the chosen engine cannot do (e.g. a screenshot over plain HTTP). */
export class UnsupportedFeatureError extends AppError {
  readonly code = 'UNSUPPORTED_FEATURE';
  readonly status = 400;
}

export class BodyTooLargeError extends AppError {
  readonly code = 'BODY_TOO_LARGE';
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  readonly status = 415;
}

/** API_KEYS is set and the request carries no valid key. */
export class UnauthorizedError extends AppError {
  readonly code = 'UNAUTHORIZED';
  readonly status = 401;
}

/** The request's Host header names a host this service does not answer for (ALLOWED_HOSTS). */
export class HostNotAllowedError extends AppError {
  readonly code = 'HOST_NOT_ALLOWED';
  readonly status = 403;
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
  readonly status = 404;
}

/** The target URL points at an address or scheme the SSRF guard refuses. */
export class TargetBlockedError extends AppError {
  readonly code = 'TARGET_BLOCKED';
  readonly status = 403;
}

/** The caller's total budget (`timeout`) ran out. */
export class TimeoutError extends AppError {
  readonly code = 'TIMEOUT';
  readonly status = 408;
  override readonly retryable = true;
}

/** DNS failure, refused connection, TLS failure, reset: the target could not be fetched. */
export class TargetUnreachableError extends AppError {
  readonly code = 'TARGET_UNREACHABLE';
  readonly status = 502;
  override readonly retryable = true;
}

export class TooManyRedirectsError extends AppError {
  readonly code = 'TOO_MANY_REDIRECTS';
  readonly status = 502;
}

/** The target's response (raw or decompressed) exceeded the configured byte cap. */
export class TargetTooLargeError extends AppError {
  readonly code = 'TARGET_TOO_LARGE';
  readonly status = 502;
}

/** The target answered with a media type we cannot turn into text (images, PDFs, archives...). */
export class UnsupportedContentError extends AppError {
  readonly code = 'UNSUPPORTED_CONTENT';
  readonly status = 422;
}

/**
 * A document too large to process: it unpacks past MAX_DOCUMENT_BYTES (zip entries, PDF streams), or its
 * conversion ran the content worker out of memory (CONTENT_WORKER_HEAP_MB).
 */
export class ContentTooLargeError extends AppError {
  readonly code = 'CONTENT_TOO_LARGE';
  readonly status = 422;
}

export class ServiceUnavailableError extends AppError {
  readonly code = 'SERVICE_UNAVAILABLE';
  readonly status = 503;
  override readonly retryable = true;
}

/** The service's own configuration makes the request impossible (e.g. an invalid env value). */
export class ConfigurationError extends AppError {
  readonly code = 'CONFIGURATION_ERROR';
  readonly status = 500;
}

/** Admission control refused the request: too many of its kind are running and queued. */
export class ServiceBusyError extends AppError {
  readonly code = 'BUSY';
  readonly status = 503;
  override readonly retryable = true;
}

/** The job store (SQLite file under DATA_DIR, or Redis) cannot be opened or written: corrupt, full, gone. */
export class StoreUnavailableError extends AppError {
  readonly code = 'STORE_UNAVAILABLE';
  readonly status = 503;
  override readonly retryable = true;
}

/** The job exists but is already over (completed, failed or cancelled): it can no longer change. */
export class JobFinishedError extends AppError {
  readonly code = 'JOB_FINISHED';
  readonly status = 409;
}

export class InternalError extends AppError {
  readonly code = 'INTERNAL';
  readonly status = 500;
}

const BY_CODE: Record<string, new (message: string) => AppError> = {
  BAD_REQUEST: BadRequestError,
  UNSUPPORTED_FEATURE: UnsupportedFeatureError,
  UNSUPPORTED_CONTENT: UnsupportedContentError,
  CONTENT_TOO_LARGE: ContentTooLargeError,
  TARGET_TOO_LARGE: TargetTooLargeError,
};

/** Rebuilds an error that crossed a thread boundary as {code, message}. */
export function errorFromCode(code: string, message: string): AppError {
  const Class = BY_CODE[code];
  return Class ? new Class(message) : new InternalError(message);
}

/** Normalizes anything thrown into an AppError; unknown errors become INTERNAL with the cause kept. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new InternalError('Internal error', { cause: err });
}
