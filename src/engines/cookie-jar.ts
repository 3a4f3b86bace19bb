import { Cookie, CookieJar } from 'tough-cookie';

/** One cookie as Playwright's `storageState` writes it (`expires`: seconds since the epoch, -1 for a session cookie). */
export interface StoredCookie {
  name: string;
  value: string;
  /** A leading dot: the domain and its subdomains (a `Domain` attribute); none: that host only. */
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

/** One origin's localStorage, as Playwright's `storageState` writes it. */
export interface OriginStorage {
  origin: string;
  localStorage: { name: string; value: string }[];
}

/** A browser's state as Playwright's `storageState`: what a profile stores. */
export interface BrowserState {
  cookies: StoredCookie[];
  origins: OriginStorage[];
}

const SAME_SITE: Record<string, StoredCookie['sameSite']> = { strict: 'Strict', lax: 'Lax', none: 'None' };

/** The key of a cookie in a jar: a second cookie with the same one replaces it (RFC 6265, 5.3). */
const keyOf = (c: StoredCookie): string => `${c.domain.replace(/^\./, '')}\n${c.path}\n${c.name}`;

function toStored(cookie: Cookie): StoredCookie {
  const expiry = cookie.expiryTime();
  return {
    name: cookie.key,
    value: cookie.value,
    domain: cookie.hostOnly ? (cookie.domain ?? '') : `.${cookie.domain ?? ''}`,
    path: cookie.path ?? '/',
    expires: expiry === undefined || !Number.isFinite(expiry) ? -1 : expiry / 1000,
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: SAME_SITE[(cookie.sameSite ?? '').toLowerCase()] ?? 'Lax',
  };
}

function toTough(c: StoredCookie): Cookie {
  return new Cookie({
    key: c.name,
    value: c.value,
    domain: c.domain.replace(/^\./, '').toLowerCase(),
    hostOnly: !c.domain.startsWith('.'),
    path: c.path || '/',
    expires: c.expires > 0 ? new Date(c.expires * 1000) : 'Infinity',
    httpOnly: c.httpOnly,
    secure: c.secure,
    sameSite: c.sameSite.toLowerCase(),
  });
}

function jarOf(cookies: StoredCookie[]): CookieJar {
  const now = Date.now() / 1000;
  return CookieJar.deserializeSync({
    version: 'tough-cookie',
    storeType: 'MemoryCookieStore',
    rejectPublicSuffixes: true,
    cookies: cookies.filter((c) => c.expires <= 0 || c.expires > now).map((c) => toTough(c).toJSON()),
  });
}

/**
 * The cookies and local storage one job works with (a crawl or batch: one per job; a lone scrape: one per
 * request), started from a profile. The http engine asks it for each hop's `Cookie` header and gives it every
 * `Set-Cookie` (tough-cookie's rules: domain, path, Secure, expiry, public suffixes), the browser starts its
 * context from `state()` and hands back what the page left with `absorb`. Values never leave it except
 * through `state()` (the profile store) and the requests to the cookies' own domains.
 */
export class CookieJarHandle {
  private jar: CookieJar;
  private origins: OriginStorage[];

  constructor(state: BrowserState = { cookies: [], origins: [] }) {
    this.jar = jarOf(state.cookies);
    this.origins = state.origins.map((o) => ({ ...o, localStorage: [...o.localStorage] }));
  }

  /** The `Cookie` header for a request to `url` ('' when no cookie matches). */
  cookieHeader(url: URL): string {
    return this.jar.getCookieStringSync(url.href);
  }

  /** Keeps the cookies of a response from `url`; a cookie for another domain or a public suffix is dropped. */
  keep(url: URL, setCookie: string | string[] | undefined): void {
    for (const line of typeof setCookie === 'string' ? [setCookie] : (setCookie ?? [])) {
      this.jar.setCookieSync(line, url.href, { ignoreError: true });
    }
  }

  /** The state now, as Playwright's `storageState` (expired cookies left out). */
  state(): BrowserState {
    const serialized = this.jar.serializeSync();
    const now = Date.now() / 1000;
    const cookies = (serialized?.cookies ?? [])
      .map((c) => Cookie.fromJSON(c))
      .filter((c): c is Cookie => c !== undefined)
      // `Max-Age=0` (a site deleting its cookie) expires at -Infinity, which toStored would write as a session's.
      .filter((c) => c.expiryTime() !== -Infinity)
      .map(toStored)
      .filter((c) => c.expires <= 0 || c.expires > now);
    return { cookies, origins: this.origins.map((o) => ({ ...o, localStorage: [...o.localStorage] })) };
  }

  /**
   * Takes in what a browser page ended with (`after`), given the state it started from (`before`): cookies it
   * set or changed are kept, cookies it removed are removed; cookies other pages set meanwhile stay.
   */
  absorb(before: BrowserState, after: BrowserState): void {
    const current = new Map(this.state().cookies.map((c) => [keyOf(c), c]));
    const kept = new Set(after.cookies.map(keyOf));
    for (const c of before.cookies) if (!kept.has(keyOf(c))) current.delete(keyOf(c));
    for (const c of after.cookies) current.set(keyOf(c), c);
    this.jar = jarOf([...current.values()]);
    const origins = new Map(this.origins.map((o) => [o.origin, o]));
    const stillThere = new Set(after.origins.map((o) => o.origin));
    for (const o of before.origins) if (!stillThere.has(o.origin)) origins.delete(o.origin);
    for (const o of after.origins) origins.set(o.origin, o);
    this.origins = [...origins.values()];
  }
}

/**
 * What `ours` changed since `base`, applied to `theirs` (the state stored now, which other writers may have
 * changed meanwhile): cookies and localStorage items ours added or changed are ours, those ours removed go, and
 * everything else is theirs. So a job share saving its jar never drops what another share of the job saved.
 */
export function mergeStates(base: BrowserState, ours: BrowserState, theirs: BrowserState): BrowserState {
  const before = new Map(base.cookies.map((c) => [keyOf(c), JSON.stringify(c)]));
  const mine = new Map(ours.cookies.map((c) => [keyOf(c), c]));
  const cookies = new Map(theirs.cookies.map((c) => [keyOf(c), c]));
  for (const key of before.keys()) if (!mine.has(key)) cookies.delete(key);
  for (const [key, c] of mine) if (before.get(key) !== JSON.stringify(c)) cookies.set(key, c);

  const items = (s: BrowserState): Map<string, string> =>
    new Map(s.origins.flatMap((o) => o.localStorage.map((i) => [`${o.origin}\n${i.name}`, i.value])));
  const [was, now, stored] = [items(base), items(ours), items(theirs)];
  for (const key of was.keys()) if (!now.has(key)) stored.delete(key);
  for (const [key, value] of now) if (was.get(key) !== value) stored.set(key, value);
  const origins = new Map<string, OriginStorage>();
  for (const [key, value] of stored) {
    const [origin, name] = key.split('\n') as [string, string];
    const entry = origins.get(origin) ?? { origin, localStorage: [] };
    entry.localStorage.push({ name, value });
    origins.set(origin, entry);
  }
  return { cookies: [...cookies.values()], origins: [...origins.values()] };
}
