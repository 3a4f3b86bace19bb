import { createHash, createPrivateKey, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Where a signature agent's keys are served (its well-known URI, RFC 8615). */
export const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

/** The label of our signature in Signature, Signature-Input and Signature-Agent. */
const LABEL = 'sig1';
/**
 * How long a signature verifies: every request is signed as it leaves, so a short window only has to cover
 * the time to the origin and a clock a little off, and bounds how long an observed signature can be replayed.
 */
const REQUEST_LIFETIME_S = 300;
/** The directory's signature outlives its cache lifetime, so a cached copy still proves possession. */
const DIRECTORY_LIFETIME_S = 86_400;
const DIRECTORY_MAX_AGE_S = 3600;

/** A public Ed25519 JWK as the directory lists it; `kid` is its thumbprint, the `keyid` of our signatures. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
}

/** A structured-field String (RFC 9651 §4.1.6): quotes and backslashes escaped; printable ASCII only. */
function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error('a structured-field string takes printable ASCII only');
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * Web Bot Auth (draft-ietf-webbotauth-httpsig-protocol, Cloudflare's signed agents): an Ed25519 key that
 * signs every request the engines send, per RFC 9421, covering the request's `@authority` and our
 * `Signature-Agent` member, and the directory of its public key that a verifier fetches from the agent's
 * origin. Signatures are made here (node:crypto) rather than by the `web-bot-auth` package, whose 0.1.x
 * signs `Signature-Agent` as a bare string where the draft now asks for the dictionary member.
 */
export class WebBotAuth {
  readonly publicJwk: PublicJwk;
  /** Our `Signature-Agent` member's value: the agent's https origin as a structured-field String. */
  private readonly agentValue: string;

  private constructor(
    private readonly key: KeyObject,
    x: string,
    /** The https URL verifiers resolve our keys from (the origin serving DIRECTORY_PATH). */
    readonly agent: string,
  ) {
    this.publicJwk = { kty: 'OKP', crv: 'Ed25519', x, kid: thumbprint(x) };
    this.agentValue = sfString(agent);
  }

  /**
   * The key of WEB_BOT_AUTH_KEY (a private Ed25519 JWK, inline or in a file) for `agent`; an Error whose
   * message never quotes the key when it is not one.
   */
  static fromSetting(raw: string, agent: string): WebBotAuth {
    const origin = agentOrigin(agent);
    const text = raw.trim().startsWith('{') ? raw : readKeyFile(raw.trim());
    let jwk: Record<string, unknown>;
    try {
      jwk = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error('is neither a JSON Web Key nor a file holding one');
    }
    if (
      jwk.kty !== 'OKP' ||
      jwk.crv !== 'Ed25519' ||
      typeof jwk.x !== 'string' ||
      typeof jwk.d !== 'string'
    ) {
      throw new Error('must be a private Ed25519 JWK: {"kty":"OKP","crv":"Ed25519","x":…,"d":…}');
    }
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, format: 'jwk' });
    } catch {
      throw new Error('holds an Ed25519 key that does not parse (x and d must be base64url)');
    }
    // `x` is taken from the private key: a JWK whose x belongs to another key would sign unverifiably.
    const x = (key.export({ format: 'jwk' }) as { x: string }).x;
    if (x !== jwk.x) throw new Error('holds an x that is not the public half of its d');
    return new WebBotAuth(key, x, origin);
  }

  /** Signature-Agent, Signature-Input and Signature for one request to `url` (one hop: its own authority). */
  headersFor(url: URL, now = Date.now()): Record<string, string> {
    const created = Math.floor(now / 1000);
    const expires = created + REQUEST_LIFETIME_S;
    const nonce = randomBytes(64).toString('base64');
    const params =
      `("@authority" "signature-agent";key="${LABEL}");created=${created};expires=${expires}` +
      `;keyid="${this.publicJwk.kid}";alg="ed25519";nonce="${nonce}";tag="web-bot-auth"`;
    const base = [
      `"@authority": ${url.host}`,
      `"signature-agent";key="${LABEL}": ${this.agentValue}`,
      `"@signature-params": ${params}`,
    ].join('\n');
    return {
      'signature-agent': `${LABEL}=${this.agentValue}`,
      'signature-input': `${LABEL}=${params}`,
      signature: `${LABEL}=:${sign(null, Buffer.from(base), this.key).toString('base64')}:`,
    };
  }

  /**
   * The key directory as served to a request for `authority`: the JWKS and its headers, signed with the key
   * it lists (covering the request's authority and the body's digest), which proves that the holder of the
   * key serves it there and keeps the set from being re-served under another name.
   */
  directory(authority: string, now = Date.now()): { headers: Record<string, string>; body: string } {
    const body = JSON.stringify({ keys: [this.publicJwk] });
    const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
    const created = Math.floor(now / 1000);
    const params =
      `("@authority";req "content-digest");created=${created};expires=${created + DIRECTORY_LIFETIME_S}` +
      `;keyid="${this.publicJwk.kid}";alg="ed25519";tag="http-message-signatures-directory"`;
    const base = [
      `"@authority";req: ${authority.toLowerCase()}`,
      `"content-digest": ${digest}`,
      `"@signature-params": ${params}`,
    ].join('\n');
    return {
      body,
      headers: {
        'content-type': DIRECTORY_MEDIA_TYPE,
        'cache-control': `max-age=${DIRECTORY_MAX_AGE_S}`,
        'content-digest': digest,
        'signature-input': `${LABEL}=${params}`,
        signature: `${LABEL}=:${sign(null, Buffer.from(base), this.key).toString('base64')}:`,
      },
    };
  }
}

/**
 * The origin of WEB_BOT_AUTH_AGENT: the draft's default discovery (`directory`) resolves the well-known URI
 * at an origin, so a member naming anything else would be ignored by verifiers. The well-known URI itself is
 * taken for its origin; any other path is refused rather than dropped unseen.
 */
function agentOrigin(agent: string): string {
  const url = new URL(agent);
  if ((url.pathname !== '/' && url.pathname !== DIRECTORY_PATH) || url.search || url.hash || url.username) {
    throw new AgentError(
      `WEB_BOT_AUTH_AGENT must be an https origin (its keys are read at ${DIRECTORY_PATH})`,
    );
  }
  return url.origin;
}

/** WEB_BOT_AUTH_AGENT is wrong (the other errors are about WEB_BOT_AUTH_KEY). */
export class AgentError extends Error {}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? ` (${String(err.code)})` : '';
    throw new Error(`is not a JSON Web Key, and no file of that name can be read${code}`);
  }
}

/** The JWK SHA-256 thumbprint of an Ed25519 public key (RFC 7638, RFC 8037 §A.3), base64url. */
function thumbprint(x: string): string {
  const canonical = JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x });
  return createHash('sha256').update(canonical).digest('base64url');
}
