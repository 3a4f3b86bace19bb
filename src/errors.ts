/** What one error code means to a caller: the HTTP status it is answered with, and when it is answered. */
export interface ErrorSpec {
  readonly status: number;
  /**
   * Transient cause (a later attempt could succeed) or permanent one (the same request fails the same way).
   * Read by the retries of a page (src/pipeline/fetch-page.ts, src/jobs/crawl-run.ts).
   */
  readonly retryable: boolean;
  /** The causes of a retryable code that are permanent all the same: its error is built `permanent`. */
  readonly permanentWhen?: string;
  /** When the code is answered: the "When" column of docs/reference/errors.md. */
  readonly doc: string;
  /** Only ever the failure of one item inside a batch (an extract result), never a whole request's answer. */
  readonly perItem?: true;
}

/**
 * Every error code of the service, once. `code` is part of the public contract (docs/reference/errors.md,
 * generated from this table by scripts/reference/errors.ts) and is never renamed; each class below takes
 * its status and `retryable` from here.
 */
export const ERRORS = {
  BAD_REQUEST: {
    status: 400,
    retryable: false,
    doc: 'Invalid input: missing/unknown field, wrong type, out-of-range value, malformed JSON, bad URL or scheme, credentials in the URL, invalid CSS selector, forbidden header, invalid JSON Schema.',
  },
  UNSUPPORTED_FEATURE: {
    status: 400,
    retryable: false,
    doc: 'The chosen engine cannot do what was asked (e.g. `screenshot` with `engine: "http"`).',
  },
  SCRAPE_SSL_ERROR: {
    status: 400,
    retryable: false,
    doc: "Firecrawl's scrape only: the target's TLS certificate failed verification (expired, self-signed, wrong name) and `skipTlsVerification` is false. Firecrawl answers 500; a 4xx here says the same request fails the same way.",
  },
  UNAUTHORIZED: {
    status: 401,
    retryable: false,
    doc: '`API_KEYS` is set and the request has no valid key (`Authorization: Bearer <key>` or `X-Api-Key`).',
  },
  HOST_NOT_ALLOWED: {
    status: 403,
    retryable: false,
    doc: "The request's `Host` header names a host this service does not answer for (`ALLOWED_HOSTS`; DNS rebinding).",
  },
  TARGET_BLOCKED: {
    status: 403,
    retryable: false,
    doc: 'The SSRF guard refused the target (private, loopback, link-local, metadata address; non-http(s) redirect).',
  },
  TARGET_CHALLENGE: {
    status: 403,
    retryable: false,
    doc: 'An anti-bot challenge or block page (WAF interstitial, CAPTCHA) the browser did not get past within the page\'s deadline, or met with `engine: "http"` or no browser engine; the message names the signal. No CAPTCHA is solved.',
  },
  NOT_FOUND: {
    status: 404,
    retryable: false,
    doc: 'No such route, or no such job (`Job not found`, as Firecrawl says it).',
  },
  SCRAPE_NO_CACHED_DATA: {
    status: 404,
    retryable: false,
    doc: "Firecrawl's scrape with `minAge`: no cached document of the page (for the caller's tenant) is at least `minAge` ms old (and within `maxAge` when given). Nothing was fetched.",
  },
  SCRAPE_LOCKDOWN_CACHE_MISS: {
    status: 404,
    retryable: false,
    doc: "Firecrawl's scrape with `lockdown: true`: no cached document of the page (for the caller's tenant) within `maxAge` (default two years). Nothing was fetched.",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    retryable: false,
    doc: '`GET` or `DELETE` on `/mcp`: the MCP endpoint is stateless and takes `POST` only (sent with `Allow: POST`).',
  },
  TIMEOUT: { status: 408, retryable: true, doc: "The request's `timeout` budget ran out." },
  MAP_TIMEOUT: {
    status: 408,
    retryable: true,
    doc: "Firecrawl's map given a `timeout` that ran out before the map was complete (without `timeout`, the links found in 30 s are answered).",
  },
  JOB_FINISHED: {
    status: 409,
    retryable: false,
    doc: 'Cancelling a job that already ended ("Crawl is already completed").',
  },
  THREAD_BUSY: {
    status: 409,
    retryable: true,
    doc: "An agent follow-up (`threadId`) while the thread's previous run is still in progress: send it once that run ended.",
  },
  SESSION_HELD_ELSEWHERE: {
    status: 409,
    retryable: false,
    doc: 'The browser session is held by another process of the fleet, which this one cannot forward to (no `FLEET_SECRET`, or the holder advertised no address); the message names it (`host:pid`). With `FLEET_SECRET` and `ADVERTISE_URL` every process forwards the call there.',
  },
  SESSION_ENDED: {
    status: 410,
    retryable: false,
    doc: 'The browser session has ended (its `ttl` or `activityTtl` passed, it was deleted, its browser died or outgrew `SESSION_MEMORY_BYTES`); the message says when and why.',
  },
  BODY_TOO_LARGE: {
    status: 413,
    retryable: false,
    doc: 'The request body exceeds `MAX_REQUEST_BODY_BYTES`.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    retryable: false,
    doc: 'The request body is not `application/json`.',
  },
  UNSUPPORTED_CONTENT: {
    status: 422,
    retryable: false,
    doc: 'The target served a binary type that cannot become text.',
  },
  CONTENT_TOO_LARGE: {
    status: 422,
    retryable: false,
    doc: 'A document unpacks past `MAX_DOCUMENT_BYTES` (zip entries, PDF streams), converting it ran the content worker out of memory (`CONTENT_WORKER_HEAP_MB`), or a profile to save holds over 1 MiB of cookies and local storage.',
  },
  ACTION_FAILED: {
    status: 422,
    retryable: false,
    doc: 'A browser action failed on the page (the message names its index), or `waitForSelector` never appeared.',
  },
  SCHEMA_VIOLATION: {
    status: 422,
    retryable: false,
    perItem: true,
    doc: "The data extracted from a page does not match the caller's JSON Schema; the message lists the violations.",
  },
  HOST_PAUSED: {
    status: 429,
    retryable: false,
    perItem: true,
    doc: "A crawl paused the page's host for the job: more than 10 of the host's last 20 pages ended in `403` or `429` after their retries. The page was not fetched; the job's `warning` names the host.",
  },
  SESSION_LIMIT: {
    status: 429,
    retryable: true,
    doc: "`MAX_BROWSER_SESSIONS` browser sessions are open in this process, or the caller's tenant holds its `sessions` limit (`MAX_SESSIONS_PER_TENANT`) across the fleet; the message names which. One must end before another starts.",
  },
  LIMIT_REACHED: {
    status: 429,
    retryable: true,
    doc: "A limit of the caller's tenant is reached (monitors, agent runs, jobs in flight, pages or LLM tokens of the day); the message names the limit (the tenant's own in `TENANTS_FILE`, or the setting), and `Retry-After` says when it frees where that is known.",
  },
  CONFIGURATION_ERROR: {
    status: 500,
    retryable: false,
    doc: "The service's own configuration prevents the request (e.g. an invalid `SERVICE_EXTRACT_CONCURRENCY`).",
  },
  INTERNAL: {
    status: 500,
    retryable: false,
    doc: 'A bug. The message is generic; the log has the details.',
  },
  TARGET_UNREACHABLE: {
    status: 502,
    retryable: true,
    permanentWhen:
      'the host name does not exist (DNS "name not found"), its certificate fails verification, or a redirect names an invalid location',
    doc: 'DNS failure, refused or reset connection, TLS failure (the message says to set `skipTlsVerification`).',
  },
  TOO_MANY_REDIRECTS: {
    status: 502,
    retryable: false,
    doc: 'More than `MAX_REDIRECTS` redirects (loops included).',
  },
  TARGET_TOO_LARGE: {
    status: 502,
    retryable: false,
    doc: "The target's body exceeded `MAX_RESPONSE_BYTES` on the wire or `MAX_DECOMPRESSED_BYTES` decoded.",
  },
  PROXY_FAILED: {
    status: 502,
    retryable: true,
    doc: 'No configured proxy could carry the request (connection refused, `407`, `CONNECT` refused): each was tried once; the message names them by host and port, never with their credentials.',
  },
  SEARCH_PROVIDER_FAILED: {
    status: 502,
    retryable: true,
    doc: 'The search provider was unreachable, rate limiting (429), failing, or answered something unparsable; the message names it.',
  },
  LLM_FAILED: {
    status: 502,
    retryable: true,
    perItem: true,
    doc: 'The LLM endpoint could not be reached, answered an HTTP error, or answered no JSON.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    retryable: true,
    doc: 'A needed capability is not available (the browser engine, saturated content workers); sent with `Retry-After`.',
  },
  BUSY: {
    status: 503,
    retryable: true,
    doc: 'Admission control: too many requests of this kind are running and queued; sent with `Retry-After`.',
  },
  STORE_UNAVAILABLE: {
    status: 503,
    retryable: true,
    doc: 'The job store cannot be opened or written (unwritable `DATA_DIR`, corrupt file, full disk); the message says why.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/**
 * The one error hierarchy of the service: every failure that reaches a client is an AppError, answered by
 * the surface's error handler as `{success: false, code, error}` with the code's status. A class declares
 * only its `code`; status and `retryable` come from ERRORS.
 *
 * `retryable` is read by the retries of a page (src/pipeline/fetch-page.ts within a scrape's deadline,
 * src/jobs/crawl-run.ts through a crawl's frontier): a transient cause (an attempt timing out, a refused or
 * reset connection, a busy service) is tried again; a permanent one (4xx, robots, SSRF block, oversized
 * target) is recorded at once. An error built with `permanent` is never retried whatever its code (a host name
 * that does not exist is TARGET_UNREACHABLE, as a reset connection is, but no retry will find it).
 */
export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  /** Permanent although its code is retryable (the cause is one of its code's `permanentWhen`). */
  readonly permanent: boolean;
  /** When trying again may succeed, in seconds, where that is known: the answer's `Retry-After`. */
  readonly retryAfterSeconds: number | null;
  constructor(message: string, options?: ErrorOptions & { permanent?: boolean; retryAfterSeconds?: number }) {
    super(message, options);
    this.name = new.target.name;
    this.permanent = options?.permanent ?? false;
    this.retryAfterSeconds = options?.retryAfterSeconds ?? null;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }

  get retryable(): boolean {
    return ERRORS[this.code].retryable && !this.permanent;
  }
}

/**
 * One failed check of a request, by field: `path` lists the keys and indexes down to the field (as zod and
 * Firecrawl's `details` do), `code` names the kind of check in zod's words (`invalid_type`, `invalid_value`,
 * `invalid_union`, `too_big`, `too_small`, `invalid_format`, `unrecognized_keys`, or `custom` for a check
 * across fields).
 */
export interface FieldIssue {
  code: string;
  path: (string | number)[];
  message: string;
}

export class BadRequestError extends AppError {
  readonly code = 'BAD_REQUEST';
  /** The failed checks by field, where they are known: the Firecrawl surface answers them as `details`. */
  readonly details: readonly FieldIssue[] | null;
  constructor(message: string, options?: ErrorOptions & { details?: FieldIssue[] }) {
    super(message, options);
    this.details = options?.details ?? null;
  }
}

/** A request that asks for something the chosen engine cannot do (e.g. a screenshot over plain HTTP). */
export class UnsupportedFeatureError extends AppError {
  readonly code = 'UNSUPPORTED_FEATURE';
}

/** A certificate that failed verification, as Firecrawl's scrape names it (src/firecrawl/ only). */
export class ScrapeSslError extends AppError {
  readonly code = 'SCRAPE_SSL_ERROR';
}

export class BodyTooLargeError extends AppError {
  readonly code = 'BODY_TOO_LARGE';
}

export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/** API_KEYS is set and the request carries no valid key. */
export class UnauthorizedError extends AppError {
  readonly code = 'UNAUTHORIZED';
}

/** The request's Host header names a host this service does not answer for (ALLOWED_HOSTS). */
export class HostNotAllowedError extends AppError {
  readonly code = 'HOST_NOT_ALLOWED';
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
}

/** A cache-only scrape (`minAge`) with nothing cached old enough. */
export class NoCachedDataError extends AppError {
  readonly code = 'SCRAPE_NO_CACHED_DATA';
}

/** A lockdown scrape (cache only, never a fetch) with nothing cached. */
export class LockdownCacheMissError extends AppError {
  readonly code = 'SCRAPE_LOCKDOWN_CACHE_MISS';
}

/** A method the route does not take (the stateless MCP endpoint takes POST only). */
export class MethodNotAllowedError extends AppError {
  readonly code = 'METHOD_NOT_ALLOWED';
}

/** The target URL points at an address or scheme the SSRF guard refuses. */
export class TargetBlockedError extends AppError {
  readonly code = 'TARGET_BLOCKED';
}

/** An anti-bot challenge (a WAF interstitial, a CAPTCHA) stood in front of the page and was not passed. */
export class TargetChallengeError extends AppError {
  readonly code = 'TARGET_CHALLENGE';
}

/** The caller's total budget (`timeout`) ran out. */
export class TimeoutError extends AppError {
  readonly code = 'TIMEOUT';
}

/** A map whose caller-given `timeout` ran out: answered 408 as Firecrawl does, not with the links found so far. */
export class MapTimeoutError extends AppError {
  readonly code = 'MAP_TIMEOUT';
}

/**
 * DNS failure, refused connection, TLS failure, reset: the target could not be fetched. Transient, but built
 * `permanent` for a host name that does not exist, a certificate that fails verification, an invalid redirect.
 */
export class TargetUnreachableError extends AppError {
  readonly code = 'TARGET_UNREACHABLE';
}

/** The target's certificate failed verification: unreachable for good unless the caller skips verification. */
export class TargetCertificateError extends TargetUnreachableError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { ...options, permanent: true });
  }
}

export class TooManyRedirectsError extends AppError {
  readonly code = 'TOO_MANY_REDIRECTS';
}

/** The target's response (raw or decompressed) exceeded the configured byte cap. */
export class TargetTooLargeError extends AppError {
  readonly code = 'TARGET_TOO_LARGE';
}

/** The target answered with a media type we cannot turn into text (images, PDFs, archives...). */
export class UnsupportedContentError extends AppError {
  readonly code = 'UNSUPPORTED_CONTENT';
}

/**
 * A document too large to process: it unpacks past MAX_DOCUMENT_BYTES (zip entries, PDF streams), or its
 * conversion ran the content worker out of memory (CONTENT_WORKER_HEAP_MB).
 */
export class ContentTooLargeError extends AppError {
  readonly code = 'CONTENT_TOO_LARGE';
}

/** A browser action (or `waitForSelector`) failed on the page; the message names which. */
export class ActionFailedError extends AppError {
  readonly code = 'ACTION_FAILED';
}

/** Extracted data that does not match the caller's JSON Schema: one extract result's failure. */
export class SchemaViolationError extends AppError {
  readonly code = 'SCHEMA_VIOLATION';
}

/** No proxy of the request's tier could carry it: each one failed (connection, 407, CONNECT refused). */
export class ProxyFailedError extends AppError {
  readonly code = 'PROXY_FAILED';
}

/** A page of a crawl not fetched: its host refused most of the crawl's last pages (403, 429) and is paused. */
export class HostPausedError extends AppError {
  readonly code = 'HOST_PAUSED';
}

/** The search provider was down, refused (429), or answered something unparsable. */
export class SearchProviderError extends AppError {
  readonly code = 'SEARCH_PROVIDER_FAILED';
}

/** The failure of one LLM call: per-URL in extract, a fallback in llms.txt. */
export class LlmError extends AppError {
  readonly code = 'LLM_FAILED';
}

export class ServiceUnavailableError extends AppError {
  readonly code = 'SERVICE_UNAVAILABLE';
}

/** The service's own configuration makes the request impossible (e.g. an invalid env value). */
export class ConfigurationError extends AppError {
  readonly code = 'CONFIGURATION_ERROR';
}

/** Admission control refused the request: too many of its kind are running and queued. */
export class ServiceBusyError extends AppError {
  readonly code = 'BUSY';
}

/** The job store (SQLite file under DATA_DIR, or Redis) cannot be opened or written: corrupt, full, gone. */
export class StoreUnavailableError extends AppError {
  readonly code = 'STORE_UNAVAILABLE';
}

/** The job exists but is already over (completed, failed or cancelled): it can no longer change. */
export class JobFinishedError extends AppError {
  readonly code = 'JOB_FINISHED';
}

/** A follow-up on an agent thread whose last run has not ended. */
export class ThreadBusyError extends AppError {
  readonly code = 'THREAD_BUSY';
}

/**
 * A browser session that another process of the fleet holds: the message names that process; `holderUrl` is
 * where the fleet reaches it (null when it advertised none), so that a call can be forwarded there.
 */
export class SessionHeldElsewhereError extends AppError {
  readonly code = 'SESSION_HELD_ELSEWHERE';
  constructor(
    message: string,
    readonly sessionId: string | null = null,
    readonly holderUrl: string | null = null,
  ) {
    super(message);
  }
}

/** A browser session that has ended: the message says when and why. */
export class SessionEndedError extends AppError {
  readonly code = 'SESSION_ENDED';
}

/** MAX_BROWSER_SESSIONS sessions are open in this process. */
export class SessionLimitError extends AppError {
  readonly code = 'SESSION_LIMIT';
}

/** A limit of the caller's tenant: the message names it. */
export class LimitReachedError extends AppError {
  readonly code = 'LIMIT_REACHED';
}

export class InternalError extends AppError {
  readonly code = 'INTERNAL';
}

/** The class of every code: the compiler fails when a code of ERRORS has none. */
const BY_CODE: Record<ErrorCode, new (message: string) => AppError> = {
  BAD_REQUEST: BadRequestError,
  UNSUPPORTED_FEATURE: UnsupportedFeatureError,
  SCRAPE_SSL_ERROR: ScrapeSslError,
  UNAUTHORIZED: UnauthorizedError,
  HOST_NOT_ALLOWED: HostNotAllowedError,
  TARGET_BLOCKED: TargetBlockedError,
  TARGET_CHALLENGE: TargetChallengeError,
  NOT_FOUND: NotFoundError,
  SCRAPE_NO_CACHED_DATA: NoCachedDataError,
  SCRAPE_LOCKDOWN_CACHE_MISS: LockdownCacheMissError,
  METHOD_NOT_ALLOWED: MethodNotAllowedError,
  TIMEOUT: TimeoutError,
  MAP_TIMEOUT: MapTimeoutError,
  JOB_FINISHED: JobFinishedError,
  BODY_TOO_LARGE: BodyTooLargeError,
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
  UNSUPPORTED_CONTENT: UnsupportedContentError,
  CONTENT_TOO_LARGE: ContentTooLargeError,
  ACTION_FAILED: ActionFailedError,
  SCHEMA_VIOLATION: SchemaViolationError,
  HOST_PAUSED: HostPausedError,
  CONFIGURATION_ERROR: ConfigurationError,
  INTERNAL: InternalError,
  TARGET_UNREACHABLE: TargetUnreachableError,
  TOO_MANY_REDIRECTS: TooManyRedirectsError,
  TARGET_TOO_LARGE: TargetTooLargeError,
  PROXY_FAILED: ProxyFailedError,
  SEARCH_PROVIDER_FAILED: SearchProviderError,
  LLM_FAILED: LlmError,
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
  BUSY: ServiceBusyError,
  STORE_UNAVAILABLE: StoreUnavailableError,
  THREAD_BUSY: ThreadBusyError,
  SESSION_HELD_ELSEWHERE: SessionHeldElsewhereError,
  SESSION_ENDED: SessionEndedError,
  SESSION_LIMIT: SessionLimitError,
  LIMIT_REACHED: LimitReachedError,
};

/**
 * Rebuilds an error that crossed a thread or process boundary as {code, message} (the content workers:
 * src/pipeline/content-worker.ts). Any code of ERRORS comes back as its own class; an unknown one is INTERNAL.
 */
export function errorFromCode(code: string, message: string): AppError {
  return isErrorCode(code) ? new BY_CODE[code](message) : new InternalError(message);
}

/** Normalizes anything thrown into an AppError; unknown errors become INTERNAL with the cause kept. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new InternalError('Internal error', { cause: err });
}
