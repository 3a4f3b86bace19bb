/**
 * The browser this service presents itself as: the Chromium it ships, as that Chromium describes itself in its
 * User-Agent and in its User-Agent Client Hints (`sec-ch-ua*`, `navigator.userAgentData`). Both engines take
 * their persona from here, so a site sees one browser whichever engine fetched. Pure: the version comes in.
 */

/** One brand of the client hints (`"Chromium";v="156"`). */
export interface Brand {
  brand: string;
  version: string;
}

/**
 * The low-entropy client hints, the ones sent with every request (`sec-ch-ua`, `sec-ch-ua-mobile`,
 * `sec-ch-ua-platform`). The browser derives the rest of `navigator.userAgentData` itself from the User-Agent
 * it is given (architecture, full versions), consistently with these.
 */
export interface ClientHints {
  brands: Brand[];
  mobile: boolean;
  platform: 'Linux' | 'Android';
}

/** What one kind of device says of itself: its User-Agent and, when they agree with it, its client hints. */
export interface Persona {
  userAgent: string;
  /** null when the User-Agent is the operator's own: no hint then claims a browser it may not name. */
  hints: ClientHints | null;
}

export interface Personas {
  /** The Chromium version the personas name (`156.0.8078.108`). */
  version: string;
  desktop: Persona;
  mobile: Persona;
}

/** The product token the `honest` identity adds, naming this service to the sites it visits. */
export const PRODUCT_TOKEN = 'Pagewright/0.1';

/**
 * The brands of a Chromium at `major`: its own and the GREASE brand it adds so that sites do not parse the list
 * strictly. The GREASE brand's punctuation, its version and the list's order all follow from the major version
 * (Chromium's components/embedder_support/user_agent_utils.cc); for 156, `"Not:A-Brand";v="8"` first.
 */
export function chromiumBrands(major: number): Brand[] {
  const chars = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
  const versions = ['8', '99', '24'];
  const greased = {
    brand: `Not${chars[major % chars.length]}A${chars[(major + 1) % chars.length]}Brand`,
    version: versions[major % versions.length]!,
  };
  const real = { brand: 'Chromium', version: String(major) };
  return major % 2 === 0 ? [greased, real] : [real, greased];
}

/**
 * The personas for the USER_AGENT setting: `chromium`, Chrome's reduced User-Agent for the shipped version;
 * `honest`, the same with this service's product token; anything else is the operator's own User-Agent, sent
 * as it is (on phones after a phone's prefix) with no client hints.
 */
export function personas(setting: string, version: string): Personas {
  const major = Number(version.split('.')[0]);
  const chrome = `AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0`;
  const desktop = `Mozilla/5.0 (X11; Linux x86_64) ${chrome} Safari/537.36`;
  const mobile = `Mozilla/5.0 (Linux; Android 10; K) ${chrome} Mobile Safari/537.36`;
  if (setting !== 'chromium' && setting !== 'honest') {
    return {
      version,
      desktop: { userAgent: setting, hints: null },
      // Sites serve their mobile pages to a User-Agent holding "Mobile"; the operator's own stays visible.
      mobile: { userAgent: `${mobile} ${setting}`, hints: null },
    };
  }
  const token = setting === 'honest' ? ` ${PRODUCT_TOKEN}` : '';
  const brands = chromiumBrands(major);
  return {
    version,
    desktop: { userAgent: desktop + token, hints: { brands, mobile: false, platform: 'Linux' } },
    mobile: { userAgent: mobile + token, hints: { brands, mobile: true, platform: 'Android' } },
  };
}

/** The `sec-ch-ua` value of a brand list: `"Not:A-Brand";v="8", "Chromium";v="156"`. */
export function brandHeader(brands: Brand[]): string {
  return brands.map((b) => `"${b.brand}";v="${b.version}"`).join(', ');
}
