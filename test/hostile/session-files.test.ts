import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SessionNamespaces } from '../../src/sessions/host/namespace.js';
import { rawCdp } from '../fixtures/cdp-client.js';
import type { RawCdp } from '../fixtures/cdp-client.js';
import { noChromium, startSessionService } from '../fixtures/session-service.js';
import type { SessionService } from '../fixtures/session-service.js';
import { OPEN_CALLER } from '../../src/tenants/tenant.js';

/**
 * No file of the server reaches a session's page, by any route a CDP client has: drag data with files, file
 * inputs, file:, filesystem:, chrome: and devtools: URLs in any spelling (navigation, new targets, window.open,
 * redirects, intercepted requests and answers), downloads. The secret is a file in DATA_DIR, beside the
 * service's database.
 */

const SECRET = 'SECRET-OF-THE-SERVER-7f3a';
const isolation = await new SessionNamespaces().unavailable();
let svc: SessionService;
let secretFile = '';

/** A page that keeps the text of whatever file is dropped on it. */
const DROP_PAGE =
  'data:text/html,<body style="height:600px" ondragover="event.preventDefault()" ' +
  'ondrop="event.preventDefault(); window.got = [...event.dataTransfer.files].map((f) => f.text()); ' +
  'Promise.all(window.got).then((t) => (window.text = t.join()))">drop here</body>';

async function session(): Promise<{ id: string; cdp: RawCdp; page: string }> {
  const made = await svc.api('POST', '/v2/browser', {});
  assert.equal(made.status, 200, JSON.stringify(made.json));
  const cdp = await rawCdp(made.json.cdpUrl, svc.headers());
  return { id: made.json.id, cdp, page: await cdp.attachToPage() };
}

async function text(cdp: RawCdp, page: string, expression: string): Promise<string> {
  const answer = await cdp.send(
    'Runtime.evaluate',
    { expression, returnByValue: true, awaitPromise: true },
    page,
  );
  return JSON.stringify(answer.result?.result ?? answer.error);
}

for (const mode of ['auto', 'shared']) {
  describe(`no file of the server reaches a page (SESSION_ISOLATION=${mode})`, { skip: noChromium }, () => {
    before(async () => {
      svc = await startSessionService({ SESSION_ISOLATION: mode }, (req, res) => {
        if (req.url === '/to-file') return res.writeHead(302, { location: `file://${secretFile}` }).end();
        if (req.url === '/refresh-to-file') {
          return res
            .writeHead(200, { 'content-type': 'text/html', refresh: `0; url=file://${secretFile}` })
            .end('x');
        }
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>page</title><input type=file id=f>`);
      });
      secretFile = path.join(svc.dataDir, 'secret.txt');
      writeFileSync(secretFile, SECRET);
    });
    after(() => svc?.close());

    test('a drop of server files (Input.dispatchDragEvent with files) is refused; the page reads nothing', async () => {
      const { id, cdp, page } = await session();
      await cdp.send('Page.enable', {}, page);
      await cdp.send('Page.navigate', { url: DROP_PAGE }, page);
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const files of [[secretFile], ['/etc/passwd'], [path.join(svc.dataDir, 'pagewright.db')]]) {
        for (const type of ['dragEnter', 'dragOver', 'drop']) {
          const data = { items: [], files, dragOperationsMask: 1 };
          const answer = await cdp.send('Input.dispatchDragEvent', { type, x: 50, y: 50, data }, page);
          assert.match(String(answer.error?.message), /refused/, `${type} with ${files[0]}`);
        }
      }
      // Text dragged in is served: the page's own drag and drop keeps working.
      const items = [{ mimeType: 'text/plain', data: 'hello' }];
      const dragged = await cdp.send(
        'Input.dispatchDragEvent',
        { type: 'dragEnter', x: 50, y: 50, data: { items, dragOperationsMask: 1 } },
        page,
      );
      assert.equal(dragged.error, undefined, JSON.stringify(dragged.error));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.doesNotMatch(await text(cdp, page, 'String(window.text)'), /SECRET|root:/);
      cdp.close();
      await svc.api('DELETE', `/v2/browser/${id}`);
    });

    test('file inputs, file-like URLs in any spelling, and intercepted requests leading to files are refused', async () => {
      const { id, cdp, page } = await session();
      await cdp.send('Page.navigate', { url: `${svc.site}/form` }, page);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { result } = await cdp.send('DOM.getDocument', {}, page);
      const input = await cdp.send(
        'DOM.querySelector',
        { nodeId: (result!.root as { nodeId: number }).nodeId, selector: '#f' },
        page,
      );
      const files = await cdp.send(
        'DOM.setFileInputFiles',
        { files: [secretFile], nodeId: input.result?.nodeId },
        page,
      );
      assert.match(String(files.error?.message), /refused/);
      const spellings = [
        `file://${secretFile}`,
        `FILE://${secretFile}`,
        `  file://${secretFile}`,
        `fi\tle://${secretFile}`,
        `file:${secretFile}`,
        `view-source:file://${secretFile}`,
        `filesystem:${svc.site}/temporary/x`,
        'chrome://version',
        'devtools://devtools/bundled/inspector.html',
        'about:version',
        'javascript:location="file:///etc/passwd"',
      ];
      for (const url of spellings) {
        const navigated = await cdp.send('Page.navigate', { url }, page);
        assert.match(String(navigated.error?.message), /refused/, `Page.navigate ${JSON.stringify(url)}`);
        const created = await cdp.send('Target.createTarget', { url });
        assert.match(String(created.error?.message), /refused/, `Target.createTarget ${JSON.stringify(url)}`);
      }
      // Requests the client intercepts may not be sent on, or answered, toward a file.
      await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }, page);
      void cdp.send('Page.navigate', { url: `${svc.site}/intercepted` }, page);
      let paused: { params?: Record<string, unknown> } | undefined;
      for (let i = 0; i < 100 && !paused; i++) {
        paused = cdp.events.find((e) => e.method === 'Fetch.requestPaused' && e.sessionId === page);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const requestId = paused!.params!.requestId;
      const rewritten = await cdp.send(
        'Fetch.continueRequest',
        { requestId, url: `file://${secretFile}` },
        page,
      );
      assert.match(String(rewritten.error?.message), /refused/);
      const headers = [{ name: 'Location', value: `file://${secretFile}` }];
      const fulfilled = await cdp.send(
        'Fetch.fulfillRequest',
        { requestId, responseCode: 302, responseHeaders: headers },
        page,
      );
      assert.match(String(fulfilled.error?.message), /refused/);
      const binary = Buffer.from(`location: FILE://${secretFile}\0`).toString('base64');
      const fulfilledBinary = await cdp.send(
        'Fetch.fulfillRequest',
        { requestId, responseCode: 301, binaryResponseHeaders: binary },
        page,
      );
      assert.match(String(fulfilledBinary.error?.message), /refused/);
      await cdp.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' }, page);
      await cdp.send('Fetch.disable', {}, page);
      // A download is answered as allowed and writes nothing: every context denies downloads.
      const download = await cdp.send('Browser.setDownloadBehavior', {
        behavior: 'allow',
        downloadPath: '/tmp',
      });
      assert.deepEqual(download.result, {});
      cdp.close();
      await svc.api('DELETE', `/v2/browser/${id}`);
    });

    test("the page's own routes to a file (window.open, a redirect, a Refresh header) read nothing", async () => {
      const { id, cdp, page } = await session();
      await cdp.send('Page.navigate', { url: `${svc.site}/start` }, page);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await text(cdp, page, `window.open('file://${secretFile}'); window.open('${svc.site}/to-file'); 1`);
      await cdp.send('Page.navigate', { url: `${svc.site}/refresh-to-file` }, page);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const { result } = await cdp.send('Target.getTargets');
      for (const target of result!.targetInfos as { targetId: string; url: string; type: string }[]) {
        if (target.type !== 'page') continue;
        assert.doesNotMatch(target.url, /^file:/, 'no page of the session shows a file');
        const attached = await cdp.send('Target.attachToTarget', {
          targetId: target.targetId,
          flatten: true,
        });
        const sessionId = String(attached.result?.sessionId);
        assert.doesNotMatch(await text(cdp, sessionId, 'document.documentElement.outerHTML'), /SECRET/);
      }
      cdp.close();
      await svc.api('DELETE', `/v2/browser/${id}`);
    });

    test(
      "a session's own browser sees no file of the server, even when driven by the service itself",
      {
        skip:
          mode === 'shared'
            ? 'one browser for all sessions'
            : isolation
              ? `no namespaces here: ${isolation}`
              : false,
      },
      async () => {
        const { id, cdp } = await session();
        cdp.close();
        for (const file of [
          secretFile,
          path.join(svc.dataDir, 'pagewright.db'),
          '/etc/shadow',
          process.execPath,
        ]) {
          const seen = await svc.app.services.sessions.withPage(id, OPEN_CALLER, async (page) => {
            const answer = await page.goto(`file://${file}`).catch((err: Error) => err);
            return answer instanceof Error ? answer.message : await page.content();
          });
          assert.doesNotMatch(seen, /SECRET|SQLite format|root:/, file);
          assert.match(seen, /ERR_FILE_NOT_FOUND|ERR_ACCESS_DENIED/, file);
        }
        await svc.api('DELETE', `/v2/browser/${id}`);
      },
    );
  });
}
