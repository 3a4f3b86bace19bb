// The plain baseline the service is compared against: undici fetch + turndown (GFM), nothing else.
import { createServer } from 'node:http';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';
import { fetch } from 'undici';

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
turndown.use(gfm);
turndown.remove(['script', 'style', 'noscript']);

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const { url } = JSON.parse(body) as { url: string };
    fetch(url)
      .then((r) => r.text())
      .then((html) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, data: { markdown: turndown.turndown(html) } }));
      })
      .catch((err: Error) => res.writeHead(502).end(JSON.stringify({ success: false, error: err.message })));
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
