import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TINY_PAGE_BYTES, challengeOf } from '../../src/engines/challenge.js';

const answer = (status: number, body: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body: Buffer.from(body),
});

const page = (title: string, body = ''): string =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body>${body}</body></html>`;

/** A page of ordinary content past the size of an interstitial. */
const bigPage = (extra: string): string =>
  page('Harbour news', `<p>${'Tides and ships in plain words. '.repeat(TINY_PAGE_BYTES / 16)}</p>${extra}`);

describe('challenge signals', () => {
  test('sure: a WAF header, or a marker of an interstitial', () => {
    const sure: [number, string, Record<string, string>?][] = [
      [200, '<p>x</p>', { 'cf-mitigated': 'challenge' }],
      [403, page('Just a moment...')],
      [503, page('Just a moment…')],
      [403, page('Attention Required! | Cloudflare')],
      [200, page('x', '<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script>')],
      [403, page('x', '<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>')],
      [403, page('x', '<script>window._cf_chl_opt = {cvId: "3"};</script>')],
      [403, page('x', '<div class="cf-browser-verification"></div>')],
      [403, page('x', '<script src="https://geo.captcha-delivery.com/captcha/"></script>')],
      [403, page('Access to this page has been denied', '<div id="px-captcha"></div>')],
      [403, page('x', '<script>window._pxCaptcha = 1</script>')],
      [403, page('x', '<script src="/_Incapsula_Resource?SWJIYLWA=5074a7"></script>')],
      [200, page('Request unsuccessful', '<p>Incapsula incident ID: 1234</p>')],
      [202, page('x', '<script>window.awsWafCookieDomainList = [];</script>')],
      [403, page('x', '<script>AwsWafIntegration.getToken()</script>')],
      [202, page('x', '<meta http-equiv="refresh" content="0;/.well-known/sgcaptcha/?r=%2F">')],
      [
        403,
        page(
          'Forbidden',
          '<div class="cf-turnstile"></div><script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script>',
        ),
      ],
      [429, page('Too many', '<script src="https://www.google.com/recaptcha/api.js"></script>')],
    ];
    for (const [status, body, headers] of sure) {
      const signal = challengeOf(answer(status, body, headers));
      assert.equal(signal?.sure, true, `${status} ${body.slice(0, 90)}`);
    }
    assert.match(
      challengeOf(answer(403, page('Just a moment...')))!.reason,
      /HTTP 403, a WAF interstitial title/,
    );
    assert.equal(
      challengeOf(answer(200, '', { 'cf-mitigated': 'challenge' }))!.reason,
      'cf-mitigated: challenge',
    );
  });

  test('hints: a WAF server refusing without a marker, a tiny page that reloads itself', () => {
    const hints: [number, string, Record<string, string>?][] = [
      [403, page('Forbidden', '<p>No.</p>'), { server: 'cloudflare' }],
      [503, page('Unavailable'), { server: 'AkamaiGHost' }],
      [200, page('Wait', '<script>setTimeout(() => location.reload(), 1000)</script>')],
      [403, '<html><head><meta http-equiv="refresh" content="5"></head></html>'],
    ];
    for (const [status, body, headers] of hints) {
      assert.equal(challengeOf(answer(status, body, headers))?.sure, false, `${status} ${body}`);
    }
  });

  test('pages: plain refusals, ordinary pages, big pages and other types are not looked into', () => {
    const pages: [number, string, Record<string, string>?][] = [
      [403, page('Forbidden', '<p>You may not see this.</p>')],
      [429, page('Slow down'), { server: 'cloudflare' }],
      [404, page('Just a moment...')],
      [200, page('Sign in', '<script src="https://www.google.com/recaptcha/api.js"></script>')],
      [200, page('Reading list', '<a href="/next">Just a moment... with tea</a>')],
      [200, bigPage('<script src="/cdn-cgi/challenge-platform/scripts/insights.js"></script>')],
      // What WAFs inject into ordinary pages they serve: small pages carrying them are pages.
      [200, page('News', '<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>')],
      [200, page('Shop', "<script>window._pxAppId = 'PXabc123';</script>")],
      [200, page('Docs', '<script src="/_Incapsula_Resource?SWJIYLWA=719d34d3"></script>')],
      [200, page('App', '<script>AwsWafIntegration.fetch("/api")</script>')],
      [200, bigPage('<script>location.reload()</script>')],
      [403, page('Just a moment...'), { 'content-type': 'application/json' }],
      [200, page('Redirect', '<meta http-equiv="refresh" content="0; url=/elsewhere">')],
    ];
    for (const [status, body, headers] of pages) {
      assert.equal(challengeOf(answer(status, body, headers)), null, `${status} ${body.slice(0, 90)}`);
    }
  });
});
