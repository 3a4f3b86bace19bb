/** Calls to this server's API, with the operator's key (kept in this tab's sessionStorage only). */

const KEY = 'pagewright.apiKey';

export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string): void => sessionStorage.setItem(KEY, key),
  clear: (): void => sessionStorage.removeItem(KEY),
};

/** An API answer that is not a success: its status and the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Called when the server asks for a key (401), so the app can show the key field. */
let onUnauthorized: (message: string) => void = () => undefined;
export const whenUnauthorized = (listener: (message: string) => void): void =>
  void (onUnauthorized = listener);

/** JSON from `path` (same origin), with the key as a Bearer token; never in the URL. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  const key = apiKey.get();
  if (key) headers.authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch (err) {
    throw new ApiError(0, `The server could not be reached: ${(err as Error).message}`);
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  if (!res.ok) {
    const message =
      (json as { error?: string } | null)?.error ?? (typeof json === 'string' ? json : `HTTP ${res.status}`);
    if (res.status === 401) onUnauthorized(message);
    throw new ApiError(res.status, message);
  }
  return json as T;
}

/** A curl command doing the same request, with the key as an environment variable (never its value). */
export function curlOf(path: string, body: unknown): string {
  const json = JSON.stringify(body).replace(/'/g, `'\\''`);
  const auth = apiKey.get() ? ` \\\n  -H "Authorization: Bearer $PAGEWRIGHT_API_KEY"` : '';
  return `curl -sS ${location.origin}${path} \\\n  -H 'content-type: application/json'${auth} \\\n  -d '${json}'`;
}
