import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import { docOf, startService } from '../helpers.js';

/** What real pages hide from `page.content()`: web components, iframes, infinite feeds, consent walls. */

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;

const html = (res: ServerResponse, body: string): void =>
  void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);

/** Serves `pages` (path → HTML, or a function of the server's own URL) on loopback; answers its base URL. */
async function serve(
  t: TestContext,
  pages: Record<string, string | ((base: string) => string)>,
): Promise<string> {
  let base = '';
  const server = createServer((req, res) => {
    const page = pages[(req.url ?? '/').split('?')[0]!];
    if (page === undefined) return void res.writeHead(404).end();
    html(res, typeof page === 'function' ? page(base) : page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return base;
}

const CARD = `<script>
customElements.define('product-card', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML =
      '<style>h2 { color: teal }</style><h2><slot name="title">Untitled</slot></h2>' +
      '<p>Rendered inside the shadow root: twelve months of warranty.</p><slot></slot>';
  }
});
</script>`;

describe('browser engine in depth', { skip }, () => {
  test('open shadow roots are flattened in place (slots filled); declarative ones too, in both engines', async (t) => {
    const base = await serve(t, {
      '/component': `<title>Component</title><main><h1>Catalogue</h1>
        <product-card><span slot="title">Trail shoe</span><p>Light text of the card.</p></product-card>
        <p>After the card.</p></main>${CARD}`,
      '/declarative': `<title>Declarative</title><main><h1>Catalogue</h1>
        <product-card><template shadowrootmode="open"><h2><slot name="title">Untitled</slot></h2>
        <p>Declared in the markup: free returns.</p><slot></slot></template>
        <span slot="title">Rain jacket</span><p>Light text of the jacket.</p></product-card></main>`,
    });
    const svc = await startService(t);
    const open = docOf(
      (await svc.post('/api/v1/scrape', { url: `${base}/component`, engine: 'browser' })).json,
    );
    assert.match(
      open.markdown ?? '',
      /## Trail shoe\n\nRendered inside the shadow root: twelve months of warranty\.\n\nLight text of the card\.\n\nAfter the card\./,
    );
    for (const engine of ['http', 'browser']) {
      const declared = docOf((await svc.post('/api/v1/scrape', { url: `${base}/declarative`, engine })).json);
      assert.match(
        declared.markdown ?? '',
        /## Rain jacket\n\nDeclared in the markup: free returns\.\n\nLight text of the jacket\./,
        engine,
      );
    }
  });

  test('iframes, same-origin and cross-origin, nested, are inlined where they stand; excludeTags iframe turns it off', async (t) => {
    const other = await serve(t, {
      '/widget': (own) => `<p>Cross-origin frame text.</p><iframe src="${own}/inner"></iframe>`,
      '/inner': '<p>Nested frame text, two levels down.</p>',
    });
    const base = await serve(t, {
      '/page': `<title>Frames</title><main><h1>Frames</h1><p>Before the frames.</p>
        <iframe src="/same"></iframe><iframe src="${other}/widget"></iframe><p>After the frames.</p></main>`,
      '/same': '<p>Same-origin frame text.</p>',
    });
    const svc = await startService(t);
    const doc = docOf((await svc.post('/api/v1/scrape', { url: `${base}/page`, engine: 'browser' })).json);
    assert.match(
      doc.markdown ?? '',
      /Before the frames\.\n\nSame-origin frame text\.\n\nCross-origin frame text\.\n\nNested frame text, two levels down\.\n\nAfter the frames\./,
    );
    const off = docOf(
      (
        await svc.post('/api/v1/scrape', {
          url: `${base}/page`,
          engine: 'browser',
          excludeTags: ['iframe'],
        })
      ).json,
    );
    assert.doesNotMatch(off.markdown ?? '', /frame text/);
    assert.match(off.markdown ?? '', /After the frames\./);
  });

  test('scroll down with no amount scrolls until the feed stops growing', async (t) => {
    const base = await serve(t, {
      '/feed': `<title>Feed</title><main><h1>Feed</h1><div id="feed"></div></main>
      <script>
        let shown = 0;
        const more = () => {
          for (let i = 0; i < 10 && shown < 60; i++, shown++) {
            const item = document.createElement('article');
            item.innerHTML = '<h2>Feed item ' + shown + '</h2><p>' + 'Words of the item. '.repeat(30) + '</p>';
            item.style.minHeight = '400px';
            document.getElementById('feed').append(item);
          }
        };
        more();
        addEventListener('scroll', () => {
          if (innerHeight + scrollY >= document.body.scrollHeight - 200) setTimeout(more, 100);
        });
      </script>`,
    });
    const svc = await startService(t);
    const count = (markdown: string): number => (markdown.match(/## Feed item \d+/g) ?? []).length;
    const still = docOf((await svc.post('/api/v1/scrape', { url: `${base}/feed`, engine: 'browser' })).json);
    assert.equal(count(still.markdown ?? ''), 10);
    const scrolled = docOf(
      (
        await svc.post('/api/v1/scrape', {
          url: `${base}/feed`,
          engine: 'browser',
          actions: [{ type: 'scroll', direction: 'down' }],
          timeout: 60_000,
        })
      ).json,
    );
    assert.equal(count(scrolled.markdown ?? ''), 60, 'every item, and the scrolling stopped by itself');
  });

  test('a consent wall over the page is removed from the captured page', async (t) => {
    const base = await serve(t, {
      '/story': `<title>Story</title><main><article><h1>The story</h1>
        <p>The first paragraph of the story, which a reader came for.</p>
        <p>The second paragraph of the story.</p></article></main>
        <div class="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.6);z-index:1000">
          <div style="background:#fff;margin:20vh auto;width:400px;padding:20px">
            <h2>We value your privacy</h2>
            <p>We and our 842 partners use cookies to store and access information on your device.</p>
            <button>Manage options</button><button>Accept all</button>
          </div>
        </div>
        <div style="position:fixed;top:0;left:0;right:0;height:48px;background:#eee">Site header bar</div>`,
    });
    const svc = await startService(t);
    for (const onlyMainContent of [false, true]) {
      const doc = docOf(
        (await svc.post('/api/v1/scrape', { url: `${base}/story`, engine: 'browser', onlyMainContent })).json,
      );
      assert.match(doc.markdown ?? '', /The first paragraph of the story/);
      assert.doesNotMatch(doc.markdown ?? '', /partners use cookies|Accept all|value your privacy/);
      if (!onlyMainContent)
        assert.match(doc.markdown ?? '', /Site header bar/, 'a fixed bar that is no wall stays');
    }
  });
});
