import { siteHost } from '../crawl/normalize.js';
import { RobotsCache } from '../crawl/robots.js';
import { markdownExcerpt } from '../content/text-stats.js';
import { checkLlmFields, parseJsonAnswer } from '../extract/llm.js';
import type { LlmClient, LlmEndpoint } from '../extract/llm.js';
import { toAppError } from '../errors.js';
import { Deadline } from '../lib/deadline.js';
import { mapWithLimit } from '../lib/map-limit.js';
import { parseTargetUrl } from '../lib/target-url.js';
import { DEFAULT_LLM_MODEL } from '../schemas/extract.js';
import type { LlmsTxtBody } from '../schemas/search.js';
import type { CrawlDeps } from '../jobs/crawl-run.js';
import { mapSite } from './map.js';
import { checkPageOptions, fetchAndRender } from '../pipeline/fetch-page.js';
import type { Caller } from '../tenants/tenant.js';
import { ChallengePasses } from '../pipeline/challenge-pass.js';

export interface LlmsTxtDeps extends CrawlDeps {
  llm: LlmClient;
}

interface ProcessedPage {
  url: string;
  title: string;
  description: string;
  markdown: string;
}

export interface LlmsTxtResult {
  llmstxt: string;
  llmsFulltxt: string;
  urlsProcessed: number;
  urlsDiscovered: number;
}

const DISCOVERY_TIMEOUT_MS = 60_000;
const PAGE_TIMEOUT_MS = 30_000;
const LLM_BATCH = 20;

/** One line: no line breaks, no Markdown link syntax that would break the list item. */
function oneLine(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').replace(/[[\]]/g, '').trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

function firstSentence(markdown: string): string {
  const excerpt = markdownExcerpt(markdown) ?? '';
  const sentence = /^.*?[.!?。！？](?=\s|$)/.exec(excerpt)?.[0] ?? excerpt;
  return oneLine(sentence);
}

/** Same-host pages first (discovery order kept within each group), then the rest. */
function prioritize(urls: string[], start: URL): string[] {
  const host = siteHost(start);
  const same = urls.filter((u) => siteHost(new URL(u)) === host);
  const other = urls.filter((u) => siteHost(new URL(u)) !== host);
  return [...same, ...other];
}

/** Asks the LLM for one line per page, in batches; pages it does not describe keep their description. */
async function describeWithLlm(
  pages: ProcessedPage[],
  endpoint: LlmEndpoint,
  deps: LlmsTxtDeps,
  signal: AbortSignal,
) {
  for (let i = 0; i < pages.length; i += LLM_BATCH) {
    const batch = pages.slice(i, i + LLM_BATCH);
    const listing = batch
      .map(
        (p, n) => `Page ${n + 1}\nURL: ${p.url}\nTitle: ${p.title}\nContent:\n${p.markdown.slice(0, 1500)}`,
      )
      .join('\n\n---\n\n');
    try {
      const answer = await deps.llm.complete(
        endpoint,
        {
          instructions:
            'You write llms.txt entries. For each page, write one plain sentence (at most 25 words) saying what the page offers a reader. Answer with JSON only: {"descriptions":[{"url":"...","description":"..."}]}.',
          input: listing,
          purpose: 'llmstxt',
        },
        Deadline.after(PAGE_TIMEOUT_MS * 2, signal),
      );
      const parsed = parseJsonAnswer(answer) as { descriptions?: { url?: unknown; description?: unknown }[] };
      for (const entry of parsed.descriptions ?? []) {
        const page = batch.find((p) => p.url === entry.url);
        if (page && typeof entry.description === 'string' && entry.description.trim()) {
          page.description = oneLine(entry.description);
        }
      }
    } catch {
      // An LLM failure never fails the request: these pages keep their meta descriptions.
    }
  }
}

/**
 * llms.txt for a site (llmstxt.org): discover with map's code, same-host pages first, cut to maxUrls,
 * scrape in parallel, then write the index (title, summary, one line per page) and the full text. `caller`:
 * the tenant the pages are fetched for (the request's, or the llms.txt job's owner).
 */
export async function generateLlmsTxt(
  body: LlmsTxtBody,
  signal: AbortSignal,
  deps: LlmsTxtDeps,
  caller: Caller,
): Promise<LlmsTxtResult> {
  const start = parseTargetUrl(body.url);
  checkPageOptions({ engine: body.engine }, deps.browser !== null);
  checkLlmFields(body);
  const discovered = (
    await mapSite(
      {
        url: start.href,
        includeSubdomains: body.includeSubdomains ?? true,
        ignoreSitemap: body.ignoreSitemap,
        limit: 5000,
      },
      Deadline.after(DISCOVERY_TIMEOUT_MS, signal),
      deps,
    )
  ).map((link) => link.url);
  // Pages robots.txt disallows are listed by map but never scraped.
  const robots = new RobotsCache(deps.fetchResource, deps.settings.robotsAgent);
  const allowed: string[] = [];
  for (const url of prioritize(discovered, start)) {
    if (allowed.length >= (body.maxUrls ?? 20)) break;
    const target = new URL(url);
    const rules = await robots.rulesFor(target, Deadline.after(PAGE_TIMEOUT_MS, signal));
    if (rules.isAllowed(url)) allowed.push(url);
    else {
      const reason = rules.unreachable ?? 'robots.txt disallows it';
      deps.log.debug({ op: 'llmstxt', url, reason }, 'page dropped');
    }
  }
  // A challenge in front of the site is passed once, and its clearance serves every page.
  const pageDeps = { ...deps, challenges: new ChallengePasses(deps.cookies) };
  const pages = await mapWithLimit(allowed, body.maxConcurrentScrapes ?? 10, async (url) => {
    try {
      const { document } = await fetchAndRender(
        {
          url: new URL(url),
          sourceUrl: url,
          options: { formats: ['markdown'], onlyMainContent: true, engine: body.engine },
          caller,
        },
        Deadline.after(PAGE_TIMEOUT_MS, signal),
        pageDeps,
      );
      if (document.metadata.statusCode >= 400) {
        deps.log.debug(
          { op: 'llmstxt', url, reason: `HTTP ${document.metadata.statusCode}` },
          'page dropped',
        );
        return null;
      }
      return {
        url: document.metadata.url,
        title: oneLine(document.title || url),
        description: oneLine(document.description) || firstSentence(document.markdown ?? ''),
        markdown: document.markdown ?? '',
      };
    } catch (err) {
      // A page that cannot be scraped is left out of the index; the others go on.
      deps.log.debug({ op: 'llmstxt', url, reason: toAppError(err).code }, 'page dropped');
      return null;
    }
  });
  const processed = pages.filter((p): p is ProcessedPage => p !== null);
  if (body.llmBaseUrl && processed.length > 0) {
    const endpoint = {
      baseUrl: body.llmBaseUrl,
      model: body.llmModel ?? DEFAULT_LLM_MODEL,
      apiKey: body.llmApiKey,
    };
    await describeWithLlm(processed, endpoint, deps, signal);
  }
  const home =
    processed.find((p) => p.url.replace(/\/$/, '') === start.href.replace(/\/$/, '')) ?? processed[0];
  const title = oneLine(home?.title.split(/\s[|–—-]\s/)[0] ?? '') || start.hostname;
  const summary = home?.description || `Pages of ${start.hostname}.`;
  const lines = processed.map((p) => `- [${p.title}](${p.url})${p.description ? `: ${p.description}` : ''}`);
  const llmstxt = `# ${title}\n\n> ${summary}\n\n## Pages\n\n${lines.join('\n')}\n`;
  const llmsFulltxt =
    body.showFullText === false
      ? ''
      : processed.map((p) => `# ${p.title}\n\nURL: ${p.url}\n\n${p.markdown}`).join('\n\n---\n\n') + '\n';
  return { llmstxt, llmsFulltxt, urlsProcessed: processed.length, urlsDiscovered: discovered.length };
}
