import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { loadConfig } from '../src/config/config.js';
import { buildContent } from '../src/content/build.js';
import type { Resolver } from '../src/lib/ssrf-guard.js';
import { buildApp } from '../src/app/server.js';
import { startSite } from './fixtures/site.js';
import type { Site } from './fixtures/site.js';

export interface ServiceOptions {
  env?: Record<string, string>;
  resolver?: Resolver;
  isBlockedAddress?: (address: string) => boolean;
  /** Collect the service's log lines here (otherwise logging is off). */
  logLines?: string[];
}

export interface Service {
  url: string;
  /** Browser pool figures of the running service. */
  browserStats(): { active: number; max: number; launches: number } | null;
  /** Content worker figures of the running service. */
  contentStats(): { threads: number; queued: number; inFlight: number; stopped: number };
  post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
}

/** Starts the real service on an ephemeral loopback port; closed when the test ends. */
export async function startService(t: TestContext | null, options: ServiceOptions = {}): Promise<Service> {
  const dataDir = options.env?.DATA_DIR ? null : mkdtempSync(path.join(os.tmpdir(), 'pagewright-test-'));
  const config = loadConfig({
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'silent',
    CONTENT_WORKERS: '1',
    ...options.env,
  });
  const app = await buildApp({
    config,
    logger: options.logLines
      ? { level: 'debug', stream: { write: (line: string) => void options.logLines!.push(line) } }
      : false,
    resolver: options.resolver,
    isBlockedAddress: options.isBlockedAddress,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  t?.after(async () => {
    await app.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    url,
    browserStats: () => app.services.browserStats(),
    contentStats: () => app.services.contentStats(),
    async post(path, body) {
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        json = { raw: text };
      }
      return { status: res.status, json };
    },
  };
}

export async function site(t: TestContext, host?: string): Promise<Site> {
  const s = await startSite(host);
  t.after(() => s.close());
  return s;
}

/** Shape of a scrape reply's data, for assertions. */
export interface Doc {
  title: string;
  description: string;
  url: string;
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  images?: string[];
  screenshot?: string;
  metadata: Record<string, unknown>;
}

export const docOf = (json: Record<string, unknown>): Doc => json.data as Doc;

/** A page's Markdown from the content pipeline in-process (no fetch, no worker), whole or main content only. */
export const markdownOf = (html: string, onlyMainContent = false): string =>
  buildContent(html, new URL('https://example.test/'), {
    onlyMainContent,
    removeBase64Images: true,
    html: false,
    links: false,
    images: false,
  }).markdown;
