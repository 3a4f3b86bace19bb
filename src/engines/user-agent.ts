/**
 * The User-Agent of a phone for this service: the configured product token kept, in a mobile browser's string,
 * so that sites serve their mobile pages (they look for "Mobile") and operators still see who fetched.
 */
export function mobileUserAgent(userAgent: string): string {
  return `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36 ${userAgent}`;
}
