// A loopback site of N article pages of about 35 KB each, as a news or blog site serves them: a head of
// metadata and JSON-LD, a header menu, the article (headings, paragraphs with inline links, a list, a quote, a
// figure, a table), related links, a footer, and inline scripts. Each page's text differs (a seeded generator),
// and /a/N links to /a/2N+1 and /a/2N+2, so a crawl from /a/0 reaches every page.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const WORDS = (
  'river stone quiet harbor lantern meadow signal archive market council budget transit winter season ' +
  'forest engine method record figure report island canvas garden letter museum detail window courier ' +
  'measure network summit valley harvest orbit bridge pattern village theory station promise journal ' +
  'shelter rhythm compass ribbon anchor thunder silver motion cabinet library portrait current fabric ' +
  'the of and a to in is was for on that with as by at from it an be this which or are have'
).split(' ');

/** A deterministic generator per page, so that a page is the same at each request. */
function seeded(seed: number): () => number {
  let s = seed * 2654435761 + 1;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]!);
  const text = out.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function paragraph(rand: () => number, n: number, total: number): string {
  const parts: string[] = [];
  for (let i = 0; i < 5; i++) parts.push(sentence(rand, 12 + Math.floor(rand() * 10)));
  const target = Math.floor(rand() * total);
  parts[2] = `${parts[2]} See <a href="/a/${target}">the ${WORDS[target % WORDS.length]} report</a> and <em>${WORDS[n % WORDS.length]}</em> <strong>${WORDS[(n + 3) % WORDS.length]}</strong>.`;
  return `<p>${parts.join(' ')}</p>`;
}

const MENU = `<header class="site-header"><div class="top-bar"><a class="logo" href="/"><img src="/logo.svg" alt="The Daily Bench"></a><form class="search"><input name="q" placeholder="Search"><button type="submit">Go</button></form></div><nav class="menu" aria-label="Sections"><ul class="menu-list">${Array.from(
  { length: 20 },
  (_, i) =>
    `<li class="menu-item"><a class="menu-link" href="/section/${i}"><span class="label">Section ${i}</span></a><ul class="sub-menu">${Array.from(
      { length: 3 },
      (_, j) => `<li class="sub-item"><a href="/section/${i}/${j}"><span>Topic ${i}.${j}</span></a></li>`,
    ).join('')}</ul></li>`,
).join('')}</ul></nav></header>`;

const SHARE = `<div class="share">${['x', 'facebook', 'linkedin', 'reddit', 'email', 'copy']
  .map(
    (name) =>
      `<a class="share-${name}" href="/share/${name}" aria-label="Share on ${name}"><svg viewBox="0 0 24 24"><path d="M4 4h16v16H4z"></path></svg></a>`,
  )
  .join('')}</div>`;

const FOOTER = `<footer class="site-footer"><div class="columns">${Array.from(
  { length: 4 },
  (_, c) =>
    `<ul>${Array.from({ length: 10 }, (_, i) => `<li><a href="/about/${c}/${i}">About link ${c}.${i}</a></li>`).join('')}</ul>`,
).join('')}</div><p>© 2026 The Daily Bench. All rights reserved.</p></footer>`;

const BUNDLE_BYTES = 5_000;
const BUNDLE = `<script>/* app */${'window.__q=(window.__q||[]).concat([{t:Date.now(),k:"view"}]);'.repeat(
  Math.ceil(BUNDLE_BYTES / 60),
)}</script>`;

export function articlePage(n: number, total: number): string {
  const rand = seeded(n);
  const title = sentence(rand, 7).slice(0, -1);
  const sections: string[] = [];
  for (let s = 0; s < 5; s++) {
    const paras: string[] = [];
    for (let p = 0; p < 4; p++) paras.push(paragraph(rand, n + p, total));
    sections.push(`<h2>${sentence(rand, 5).slice(0, -1)}</h2>${paras.join('')}`);
  }
  const list = `<ul>${Array.from({ length: 5 }, () => `<li>${sentence(rand, 8)}</li>`).join('')}</ul>`;
  const quote = `<blockquote><p>${sentence(rand, 18)}</p><cite>${sentence(rand, 3)}</cite></blockquote>`;
  const figure = `<figure><img src="/img/${n}.jpg" alt="${sentence(rand, 6)}" width="800" height="450"><figcaption>${sentence(rand, 10)}</figcaption></figure>`;
  const table = `<table><thead><tr><th>Year</th><th>Value</th><th>Change</th></tr></thead><tbody>${Array.from(
    { length: 6 },
    (_, i) =>
      `<tr><td>${2020 + i}</td><td>${Math.floor(rand() * 1000)}</td><td>${Math.floor(rand() * 20) - 10} %</td></tr>`,
  ).join('')}</tbody></table>`;
  const next = [2 * n + 1, 2 * n + 2].filter((m) => m < total);
  const related = Array.from({ length: 8 }, (_, i) => (n * 7 + i * 131 + 1) % total);
  const cards = related
    .map(
      (m) =>
        `<div class="card"><a href="/a/${m}"><img src="/img/t${m}.jpg" alt=""><h4>Related story ${m}</h4></a><span class="meta"><time>2 h ago</time> · <span class="tag">${WORDS[m % WORDS.length]}</span></span></div>`,
    )
    .join('');
  const comments = Array.from(
    { length: 8 },
    (_, i) =>
      `<div class="comment"><div class="comment-meta"><img class="avatar" src="/u/${i}.png" alt=""><span class="author">Reader ${(n + i) % 97}</span><time>${i + 1} h ago</time></div><p>${sentence(rand, 14)}</p><div class="actions"><button>Reply</button><button>Like</button></div></div>`,
  ).join('');
  const jsonLd = JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'NewsArticle',
    headline: title,
    datePublished: `2026-0${(n % 9) + 1}-1${n % 10}T08:00:00Z`,
    author: { '@type': 'Person', name: `Writer ${n % 50}` },
  });
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title} | The Daily Bench</title>
<meta name="description" content="${sentence(rand, 20)}"><meta property="og:title" content="${title}">
<meta property="og:type" content="article"><meta name="twitter:card" content="summary_large_image">
<link rel="canonical" href="/a/${n}"><script type="application/ld+json">${jsonLd}</script>
<style>body{font-family:serif}.menu li{display:inline}</style></head><body>${MENU}
<main><article class="post"><h1>${title}</h1><p class="byline">By Writer ${n % 50} · 5 min read</p>${SHARE}
${sections[0]}${figure}${sections[1]}${list}${quote}${sections[2]}${table}${sections[3]}${sections[4]}
<nav class="read-next"><h3>Read next</h3>${next.map((m) => `<a href="/a/${m}">Article ${m}</a>`).join(' ')}</nav>
${SHARE}</article><section class="comments"><h3>Comments</h3>${comments}</section><aside class="related"><h3>Related</h3>${cards}</aside></main>
${FOOTER}${BUNDLE}</body></html>`;
}

export interface ArticleSite {
  port: number;
  close(): Promise<void>;
}

export async function startArticleSite(total: number): Promise<ArticleSite> {
  const server = createServer((req, res) => {
    const match = /^\/a\/(\d+)$/.exec(req.url ?? '');
    const n = match ? Number(match[1]) : -1;
    if (n < 0 || n >= total) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(articlePage(n, total));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
