import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseHtml } from '../../src/content/parse/parse.js';
import { pageSignals } from '../../src/content/parse/page-signals.js';

const frameworksOf = (html: string): string[] | null => pageSignals(parseHtml(html)).detectedFrameworks;

describe('page signals', () => {
  test('frameworks are fingerprinted from ids, attributes and scripts, with what they imply', () => {
    assert.deepEqual(frameworksOf('<div id="__next"><p>Hi</p></div>'), ['next.js', 'react']);
    assert.deepEqual(frameworksOf('<div data-v-1a2b><p>Hi</p></div>'), ['vue']);
    assert.deepEqual(frameworksOf('<script src="/_nuxt/app.js"></script>'), ['nuxt', 'vue']);
  });

  test('an id or attribute named like an Object property is not a framework', () => {
    assert.equal(frameworksOf('<div id="constructor" toString="x" __proto__="y"><p>Hi</p></div>'), null);
  });
});
