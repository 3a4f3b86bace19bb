// The fidelity baseline: linkedom + @mozilla/readability + turndown (GFM), behind the same scrape route
// shape as the service, so score.mjs measures both the same way.
import { createServer } from 'node:http';
import { Readability } from '@mozilla/readability';
import { gfm } from '@joplin/turndown-plugin-gfm';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { fetch } from 'undici';

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
turndown.use(gfm);

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const { url } = JSON.parse(body || '{}') as { url?: string };
    if (!url) return void res.writeHead(200).end('{}');
    fetch(url)
      .then((r) => r.text())
      .then((html) => {
        const { document } = parseHTML(html);
        const article = new Readability(document as unknown as Document).parse();
        const markdown = turndown.turndown(article?.content ?? '');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, data: { markdown } }));
      })
      .catch((err: Error) => res.writeHead(502).end(JSON.stringify({ success: false, error: err.message })));
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
