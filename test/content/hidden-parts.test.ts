import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { markdownOf } from '../helpers.js';

const prose = (topic: string): string =>
  `<p>${`The ${topic} is described here in full sentences, with enough words to read as prose. `.repeat(6)}</p>`;

describe('parts of a page hidden until its scripts run', () => {
  test('a wrapper hiding the whole page (anti-flicker) is shown; a hidden menu of links is not', () => {
    const page = `<html><body><header><a href="/">Home</a></header>
      <div style="visibility:hidden; min-height:100vh"><article><h1>Ferries</h1>${prose('ferry timetable')}</article></div>
      </body></html>`;
    for (const only of [false, true]) assert.match(markdownOf(page, only), /ferry timetable is described/);
    const links = Array.from({ length: 60 }, (_, i) => `<li><a href="/c/${i}">Category number ${i}</a></li>`);
    const menu = `<html><body><nav><ul style="display:none">${links.join('')}</ul></nav>
      <main><p>A short visible page.</p></main></body></html>`;
    const md = markdownOf(menu);
    assert.match(md, /A short visible page/);
    assert.doesNotMatch(md, /Category number/);
  });

  test('a main landmark hiding all of its content is shown, however long the menus around it', () => {
    const links = Array.from({ length: 80 }, (_, i) => `<li><a href="/c/${i}">Category number ${i}</a></li>`);
    const menus = `<header><nav><ul>${links.join('')}</ul></nav><p>${'Free shipping on every order over fifty. '.repeat(12)}</p></header>`;
    const page = (main: string): string =>
      `<html><body>${menus}<main>${main}</main><footer>Footer</footer></body></html>`;
    const locked = page(
      `<div class="lockdown" style="display:none"><h1>Dark roast</h1>${prose('dark roast')}</div>`,
    );
    for (const only of [false, true]) assert.match(markdownOf(locked, only), /dark roast is described/);
    // So is a hidden main itself.
    const hiddenMain = `<html><body>${menus}<main style="display:none"><h1>Dark roast</h1>${prose('dark roast')}</main></body></html>`;
    assert.match(markdownOf(hiddenMain), /dark roast is described/);
    // A main that shows its own content keeps its hidden parts hidden.
    const shown = page(`<h1>Dark roast</h1><p>${'A bold coffee for the morning. '.repeat(4)}</p>
      <div style="display:none">${prose('hidden extra')}</div>`);
    assert.doesNotMatch(markdownOf(shown), /hidden extra is described/);
  });

  test('React streaming: $RC and $RS move each finished part into place, replacing its fallback', () => {
    const page = `<html><body><header><h1>Journal</h1></header>
      <main><!--$?--><template id="B:0"></template><p>Loading the article…</p><!--/$-->
      <section><template id="P:1"></template></section></main>
      <footer><p>Footer text</p></footer>
      <div hidden id="S:0"><article><h2>Tides</h2>${prose('tide table')}</article></div>
      <script>$RC=function(b,c){};$RC("B:0","S:0")</script>
      <div hidden id="S:1"><p>Comments part, streamed last.</p></div>
      <script>$RS("S:1","P:1")</script></body></html>`;
    const md = markdownOf(page);
    assert.doesNotMatch(md, /Loading the article/);
    const at = (text: string): number => md.indexOf(text);
    assert.ok(at('Tides') > at('Journal') && at('Comments part') > at('tide table'), md);
    assert.ok(at('Footer text') > at('Comments part'), md);
    assert.match(markdownOf(page, true), /tide table is described/);
    // A part that failed on the server (an error digest) leaves the fallback, as React's runtime does.
    const failed = page.replace('$RC("B:0","S:0")', '$RC("B:0","S:0","digest")');
    assert.match(markdownOf(failed), /Loading the article/);
    assert.doesNotMatch(markdownOf(failed), /tide table/);
  });

  test('a page of thousands of streamed parts on one wide parent applies the first and stops (linear work)', () => {
    const n = 5000;
    const range = Array.from({ length: n }, (_, i) => i);
    const page = `<html><body>${range.map((i) => `<!--$?--><template id="B:${i}"></template><p>Loading ${i}</p><!--/$-->`).join('')}
      ${range.map((i) => `<div hidden id="S:${i}"><p>Part ${i} text</p></div>`).join('')}
      <script>${range.map((i) => `$RC("B:${i}","S:${i}")`).join(';')}</script></body></html>`;
    const md = markdownOf(page);
    assert.match(md, /Part 0 text/);
    assert.doesNotMatch(md, /Loading 0\b/);
    assert.match(md, new RegExp(`Loading ${n - 1}`));
  });
});
