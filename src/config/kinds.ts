import { isIP } from 'node:net';

/** A setting's value the service cannot start with; the message names the variable and what it accepts. */
export class ConfigError extends Error {}

/** The reference page's sections, in order (settings.ts places every setting in one). */
export const GROUPS = [
  'Service',
  'Access',
  'Tenants',
  'Limits',
  'Fetching and content',
  'Crawl',
  'Browser',
  'Proxies',
  'Jobs and storage',
  'Several processes (Redis)',
  'LLM and search',
  'Command line',
] as const;
export type Group = (typeof GROUPS)[number];

export type Kind = 'int' | 'bytes' | 'bool' | 'hours' | 'text' | 'secret' | 'list' | 'url' | 'enum';

/** One environment variable: how it is parsed and checked, and what the configuration reference says of it. */
export interface Setting<T> {
  readonly env: string;
  readonly kind: Kind;
  readonly group: Group;
  /** One line for operators: what it does, and why one would change it. */
  readonly why: string;
  /** The variable that must be set for this one to be used (WORKERS and the others with REDIS_URL). */
  readonly requires: string | undefined;
  /**
   * When an invalid value is reported: `startup` stops the service; `request` (SERVICE_EXTRACT_CONCURRENCY only,
   * as the product specification asks) makes the value an error that the requests using it answer.
   */
  readonly checked: 'startup' | 'request';
  /** The variable's text that gives the default; null when the default is derived (`shownDefault` says how). */
  readonly defaultRaw: string | null;
  /** The reference's Default column (Markdown). */
  readonly shownDefault: string;
  /** The reference's Range / values column (Markdown). */
  readonly accepts: string;
  /** The value of the variable's text (unset or empty: the default); throws ConfigError naming the variable. */
  read(raw: string | undefined): T;
}

/** A setting as declared in its section, which sets its group. */
export type Declared<T> = Omit<Setting<T>, 'group'>;

interface Common {
  env: string;
  requires?: string;
}
/**
 * A default (shown as its text unless `shown` says otherwise), or none: with `whenUnset` the value of an unset
 * variable is null and loadConfig derives what it means, as the text says.
 */
type Default<T> = { default: T; shown?: string } | { whenUnset: string };
/** The value type of a declaration: nullable when the default is derived. */
type Value<T, O> = O extends { whenUnset: string } ? T | null : T;

function declare<T>(
  o: Common & Default<T>,
  why: string,
  kind: Kind,
  accepts: string,
  text: (value: T) => string,
  parse: (raw: string) => T,
): Declared<T | null> {
  const defaulted = 'default' in o;
  const defaultRaw = defaulted ? text(o.default) : null;
  return {
    env: o.env,
    kind,
    why,
    requires: o.requires,
    checked: 'startup',
    defaultRaw,
    shownDefault: defaulted ? (o.shown ?? `\`${defaultRaw}\``) : o.whenUnset,
    accepts,
    read: (raw) => (raw === undefined || raw === '' ? (defaulted ? o.default : null) : parse(raw)),
  };
}

/** A value as an error message may quote it: a URL's credentials hidden, long values cut. */
function quoted(raw: string): string {
  return `'${raw.replace(/\/\/[^/@]*@/, '//…@').slice(0, 200)}'`;
}

function integer(env: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${env} must be an integer from ${min} to ${max}, got ${quoted(raw)}`);
  }
  return value;
}

/** An integer within [min, max]; `unit` is shown with the range. */
export function int<const O extends Common & Default<number> & { min: number; max: number; unit?: string }>(
  o: O,
  why: string,
): Declared<Value<number, O>> {
  const unit = o.unit ? ` ${o.unit}` : '';
  return declare(o, why, 'int', `${o.min} to ${o.max}${unit}`, String, (raw) =>
    integer(o.env, raw, o.min, o.max),
  ) as Declared<Value<number, O>>;
}

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** A size in bytes as people read it: 1 KiB, 24 MiB, 4 GiB. */
function size(bytes: number): string {
  for (const [unit, n] of [
    ['GiB', GIB],
    ['MiB', MIB],
    ['KiB', KIB],
  ] as const) {
    if (bytes >= n && bytes % n === 0) return `${bytes / n} ${unit}`;
  }
  return `${bytes} B`;
}

/** A number of bytes within [min, max] (an integer; the reference shows the sizes in KiB, MiB, GiB). */
export function bytes(
  o: Common & { default: number; min: number; max: number },
  why: string,
): Declared<number> {
  return declare(
    { ...o, shown: `\`${o.default}\` (${size(o.default)})` },
    why,
    'bytes',
    `${size(o.min)} to ${size(o.max)}`,
    String,
    (raw) => integer(o.env, raw, o.min, o.max),
  ) as Declared<number>;
}

/** `true`/`false`, also `1`/`0`, `yes`/`no`, `on`/`off`, in any case. */
export function bool(o: Common & { default: boolean }, why: string): Declared<boolean> {
  return declare(o, why, 'bool', '`true`, `false`', String, (raw) => {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    throw new ConfigError(`${o.env} must be true or false, got ${quoted(raw)}`);
  }) as Declared<boolean>;
}

const HOUR_MS = 3_600_000;
const MAX_HOURS = 24 * 365;

/** A positive number of hours, fractions allowed (0.5: half an hour), read as milliseconds. */
export function hours(o: Common & { default: number }, why: string): Declared<number> {
  return declare(
    { ...o, default: o.default * HOUR_MS },
    why,
    'hours',
    `hours above 0, at most ${MAX_HOURS}; fractions allowed`,
    (ms) => String(ms / HOUR_MS),
    (raw) => {
      const value = Number(raw);
      if (!Number.isFinite(value) || value <= 0 || value > MAX_HOURS) {
        throw new ConfigError(
          `${o.env} must be a number of hours above 0, at most ${MAX_HOURS}, got ${quoted(raw)}`,
        );
      }
      return Math.round(value * HOUR_MS);
    },
  ) as Declared<number>;
}

/** Free text, taken as it is; `accepts` says what it is (a path, a name). */
export function text<const O extends Common & Default<string> & { accepts: string }>(
  o: O,
  why: string,
): Declared<Value<string, O>> {
  return declare(o, why, 'text', o.accepts, String, (raw) => raw) as Declared<Value<string, O>>;
}

/** A key or secret: taken as it is, never quoted in a message; unset means none. */
export function secret(o: Common, why: string): Declared<string | null> {
  return declare({ ...o, whenUnset: 'none' }, why, 'secret', 'text (a secret)', String, (raw) => raw);
}

/** An absolute URL with one of `schemes` (without the colon), kept as written. */
export function url<const O extends Common & Default<string> & { schemes: readonly string[] }>(
  o: O,
  why: string,
): Declared<Value<string, O>> {
  const names = o.schemes.join(' or ');
  return declare(o, why, 'url', `${o.schemes.map((s) => `\`${s}\``).join(', ')} URL`, String, (raw) => {
    let parsed: URL | null = null;
    try {
      parsed = new URL(raw);
    } catch {
      // reported below
    }
    if (parsed === null || !o.schemes.includes(parsed.protocol.slice(0, -1))) {
      throw new ConfigError(`${o.env} must be an absolute ${names} URL, got ${quoted(raw)}`);
    }
    return raw;
  }) as Declared<Value<string, O>>;
}

/** One of `values`, in any case (read in lower case). */
export function oneOf<const V extends readonly string[], const O extends Common & Default<V[number]>>(
  values: V,
  o: O,
  why: string,
): Declared<Value<V[number], O>> {
  const names = `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
  const accepts = values.map((v) => `\`${v}\``).join(', ');
  return declare<string>(o, why, 'enum', accepts, String, (raw) => {
    const value = raw.trim().toLowerCase();
    if (!values.includes(value)) throw new ConfigError(`${o.env} must be ${names}, got ${quoted(raw)}`);
    return value;
  }) as Declared<Value<V[number], O>>;
}

/** The items of a comma-separated list, trimmed, empty ones dropped; a set list must name at least one. */
function items(env: string, raw: string, what: string): string[] {
  const list = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (list.length === 0) throw new ConfigError(`${env} must name at least one ${what}, got ${quoted(raw)}`);
  return list;
}

/**
 * Keys, comma-separated. A key is never quoted in a message; one holding a control character could never be
 * sent in a header, so it is refused.
 */
export function keyList(o: Common & { shown: string }, why: string): Declared<string[]> {
  return declare<string[]>(
    { ...o, default: [] },
    why,
    'list',
    'comma-separated keys',
    (keys) => keys.join(','),
    (raw) => {
      const keys = items(o.env, raw, 'key');
      const bad = keys.findIndex((key) => /\p{Cc}/u.test(key));
      if (bad >= 0) throw new ConfigError(`${o.env}: key ${bad + 1} holds a control character`);
      return keys;
    },
  ) as Declared<string[]>;
}

/** The schemes a proxy URL may have. */
const PROXY_SCHEMES = ['http:', 'https:', 'socks5:'];

/**
 * One proxy URL: `http://`, `https://` or `socks5://`, a host, an optional port and credentials, nothing else
 * (a path or query would be meaningless). Its credentials are never quoted in a message.
 */
export function proxyUrl(env: string, raw: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {
    // reported below
  }
  if (
    parsed === null ||
    !PROXY_SCHEMES.includes(parsed.protocol) ||
    parsed.hostname === '' ||
    (parsed.pathname !== '' && parsed.pathname !== '/') ||
    parsed.search !== '' ||
    parsed.hash !== ''
  ) {
    const shown = raw.replace(/^([^:/]*:\/\/)[^/@]*@/, '$1***@');
    throw new ConfigError(`${env} must hold http://, https:// or socks5:// proxy URLs, got ${quoted(shown)}`);
  }
  return raw;
}

/** Proxy URLs, comma-separated (credentials in each URL); unset means none. */
export function proxyList(o: Common & { whenUnset: string }, why: string): Declared<string[] | null> {
  return declare<string[]>(
    o,
    why,
    'list',
    'comma-separated `http://`, `https://` or `socks5://` URLs',
    (urls) => urls.join(','),
    (raw) => items(o.env, raw, 'proxy URL').map((item) => proxyUrl(o.env, item)),
  );
}

const HOST_NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/;

/**
 * Host names, comma-separated, in lower case and IPv6 literals without brackets; `*` alone: any host. A name
 * with a scheme, port or path could never equal a Host header's name, so it is refused.
 */
export function hostList(o: Common & { whenUnset: string }, why: string): Declared<string[] | '*' | null> {
  return declare<string[] | '*'>(o, why, 'list', 'comma-separated host names, or `*`', String, (raw) => {
    if (raw.trim() === '*') return '*';
    return items(o.env, raw, 'host name').map((item) => {
      const name = item.toLowerCase().replace(/^\[(.*)\]$/, '$1');
      if (!HOST_NAME.test(name) && isIP(name) === 0) {
        throw new ConfigError(
          `${o.env} must be comma-separated host names (no scheme, port or path) or *, got ${quoted(item)}`,
        );
      }
      return name;
    });
  });
}

/**
 * A setting checked when a request uses it rather than at startup: its value is `{value}` or `{error}` (the
 * message an invalid value would have stopped the service with).
 */
export function atRequest<T>(setting: Declared<T>): Declared<{ value: T } | { error: string }> {
  return {
    ...setting,
    checked: 'request',
    read: (raw) => {
      try {
        return { value: setting.read(raw) };
      } catch (err) {
        if (err instanceof ConfigError) return { error: err.message };
        throw err;
      }
    },
  };
}

/** Places the settings of one section in its group. */
export function section<const S extends Record<string, Declared<unknown>>>(
  group: Group,
  settings: S,
): { [K in keyof S]: S[K] & { group: Group } } {
  return Object.fromEntries(
    Object.entries(settings).map(([key, setting]) => [key, { ...setting, group }]),
  ) as { [K in keyof S]: S[K] & { group: Group } };
}
