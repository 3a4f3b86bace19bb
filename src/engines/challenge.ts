/**
 * The signals of an anti-bot challenge or block page (a WAF's interstitial, a CAPTCHA) served in place of the
 * content. Cheap by design: status and headers decide whether the body is looked at, and then only its start.
 */

/** What gave a challenge page away. */
export interface ChallengeSignal {
  /**
   * True for an interstitial beyond doubt (a marker of a WAF's challenge page, `cf-mitigated: challenge`);
   * false for a hint only (a WAF's refusal without a marker, a tiny page that reloads itself), which a browser
   * may get past and which is an ordinary page when it does not.
   */
  sure: boolean;
  /** The signal in words, for errors and `detectionReason`. */
  reason: string;
}

/** What a challenge is told from: one answer of the target. */
export interface ChallengeAnswer {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** Statuses WAFs serve their interstitials and refusals with. */
const CHALLENGE_STATUSES = new Set([403, 429, 503]);

/** Bytes read for markers: interstitials are small and say what they are near the top. */
const SCAN_BYTES = 64 * 1024;

/** Bodies of a success status looked at: a challenge served with 200 or 202 is a tiny page. */
export const TINY_PAGE_BYTES = 16 * 1024;

/**
 * Markers of the common WAFs' interstitials. `anyStatus`: telling in a page served with a 2xx status too, so
 * only what appears on a challenge or block page itself (Cloudflare's challenge orchestration); the scripts
 * WAFs inject into ordinary pages (Cloudflare's `/cdn-cgi/challenge-platform/scripts/` detections,
 * PerimeterX's `_pxAppId`, Imperva's `_Incapsula_Resource`, AWS WAF's `AwsWafIntegration`) count only on a
 * refusal status.
 */
const MARKERS: { mark: RegExp; what: string; anyStatus: boolean }[] = [
  {
    mark: /_cf_chl_opt|cf-browser-verification|cf_chl_prog/,
    what: "Cloudflare's challenge",
    anyStatus: true,
  },
  {
    mark: /\/cdn-cgi\/challenge-platform\/h\/[a-z]\/orchestrate\//,
    what: "Cloudflare's challenge platform",
    anyStatus: true,
  },
  { mark: /\/cdn-cgi\/challenge-platform\//, what: "Cloudflare's detections", anyStatus: false },
  { mark: /captcha-delivery\.com/, what: "DataDome's captcha", anyStatus: true },
  { mark: /_pxCaptcha|px-captcha/, what: "PerimeterX's (HUMAN) challenge", anyStatus: true },
  { mark: /_pxAppId/, what: "PerimeterX's (HUMAN) sensor", anyStatus: false },
  { mark: /Incapsula incident ID/, what: "Imperva's (Incapsula) block", anyStatus: true },
  { mark: /_Incapsula_Resource/, what: "Imperva's (Incapsula) challenge", anyStatus: false },
  { mark: /sec-if-cpt-container|_sec\/cp_challenge/, what: "Akamai's interstitial", anyStatus: true },
  { mark: /awsWafCookieDomainList/, what: "AWS WAF's challenge", anyStatus: true },
  { mark: /AwsWafIntegration/, what: "AWS WAF's challenge script", anyStatus: false },
  { mark: /sgcaptcha/, what: "SiteGround's captcha", anyStatus: true },
  {
    mark: /challenges\.cloudflare\.com\/turnstile|hcaptcha\.com\/1\/api\.js|google\.com\/recaptcha\/api/,
    what: 'a CAPTCHA widget',
    anyStatus: false,
  },
];

/** A page that sends itself to itself: a script reloading it, or a meta refresh without another URL. */
const SELF_RELOAD =
  /location\.reload\(|<meta[^>]+http-equiv=["']?refresh["']?[^>]*content=["']?\s*\d+\s*;?\s*["'>]/i;

/**
 * A part of every marker above and of a reload, in one pass whose alternatives start apart (a long union of
 * the markers themselves scans several times slower): an ordinary page matches none and is not looked at again.
 */
const ANY_SIGN =
  /aptcha|challenge|cf_chl_|cf-browser|_pxAppId|ncapsula|cpt-container|wsWaf|reload\(|[eE]quiv|EQUIV/;

/** The titles of the common interstitials ("…" read as Latin-1 bytes too), from the start of `<title>`. */
const CHALLENGE_TITLE =
  /^<title>\s*(?:Just a moment(?:\.\.\.|…|\u00e2\u0080\u00a6)|Attention Required!|One more step|Access denied \| [^<]*Cloudflare)/i;

/** Characters from the start of a page within which its `<title>` is looked for. */
const TITLE_WITHIN = 4096;

/** `server` values of the common WAFs and CDNs with bot protection. */
const WAF_SERVER = /^(?:cloudflare|ddos-guard|akamaighost|sucuri|imperva|incapsula|datadome)/i;

/** Whether an answer's status, headers and size call for a look at its body. */
export function worthALook(status: number, headers: ChallengeAnswer['headers'], size: number): boolean {
  if (CHALLENGE_STATUSES.has(status) || headers['cf-mitigated'] === 'challenge') return true;
  return status >= 200 && status < 300 && size <= TINY_PAGE_BYTES;
}

/** The challenge an answer is, or null for a page (a plain 403 included). */
export function challengeOf(answer: ChallengeAnswer): ChallengeSignal | null {
  const { status, headers, body } = answer;
  if (headers['cf-mitigated'] === 'challenge') return { sure: true, reason: 'cf-mitigated: challenge' };
  if (!worthALook(status, headers, body.length)) return null;
  const refusal = CHALLENGE_STATUSES.has(status);
  const type = headers['content-type'] ?? '';
  if (type !== '' && !/html/i.test(type)) return null;
  const text = body.subarray(0, SCAN_BYTES).toString('latin1');
  // An interstitial's title comes first in its head.
  const title = text.slice(0, TITLE_WITHIN).search(/<title/i);
  if (title >= 0 && CHALLENGE_TITLE.test(text.slice(title, title + 200))) {
    return { sure: true, reason: `HTTP ${status}, a WAF interstitial title` };
  }
  if (!ANY_SIGN.test(text)) return refusedByWaf(status, headers);
  for (const { mark, what, anyStatus } of MARKERS) {
    if ((refusal || anyStatus) && mark.test(text)) return { sure: true, reason: `HTTP ${status}, ${what}` };
  }
  if (body.length <= TINY_PAGE_BYTES && SELF_RELOAD.test(text)) {
    return { sure: false, reason: `HTTP ${status}, a tiny page that reloads itself` };
  }
  return refusedByWaf(status, headers);
}

/** A hint: a WAF's server refusing without any marker (429: a rate limit, not a challenge). */
function refusedByWaf(status: number, headers: ChallengeAnswer['headers']): ChallengeSignal | null {
  if (status !== 403 && status !== 503) return null;
  if (!WAF_SERVER.test(headers.server ?? '')) return null;
  return { sure: false, reason: `HTTP ${status} from ${headers.server}` };
}
