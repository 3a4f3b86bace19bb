import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadCliConfig, loadConfig } from '../src/config/config.js';
import type { Setting } from '../src/config/kinds.js';
import { GROUPS } from '../src/config/kinds.js';
import { SETTINGS } from '../src/config/settings.js';

const TABLE: Setting<unknown>[] = Object.values(SETTINGS);
const NAMES = new Set(TABLE.map((s) => s.env));
const ROOT = path.join(import.meta.dirname, '..');

/** Asserts that loadConfig(env) throws a ConfigError whose message names `variable`. */
function refuses(env: Record<string, string>, variable: string): ConfigError {
  let error: unknown = null;
  try {
    loadConfig(env);
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof ConfigError, `${JSON.stringify(env)} is refused with a ConfigError`);
  assert.match(error.message, new RegExp(`\\b${variable}\\b`), `the message names ${variable}`);
  return error;
}

describe('the settings table', () => {
  test('names each variable once, in a known group, with a description', () => {
    assert.equal(NAMES.size, TABLE.length, 'no variable is declared twice');
    for (const setting of TABLE) {
      assert.match(setting.env, /^[A-Z][A-Z0-9_]*$/);
      assert.ok(GROUPS.includes(setting.group), `${setting.env}: group ${setting.group}`);
      assert.ok(setting.why.length > 10, `${setting.env} says why`);
      assert.ok(setting.requires === undefined || NAMES.has(setting.requires), `${setting.env}.requires`);
    }
    for (const group of GROUPS)
      assert.ok(
        TABLE.some((s) => s.group === group),
        `${group} holds a setting`,
      );
  });

  test('every setting parses its default, and the text of its default gives the same value', () => {
    for (const setting of TABLE) {
      const value = setting.read(undefined);
      assert.deepEqual(setting.read(''), value, `${setting.env}: empty is unset`);
      if (setting.defaultRaw !== null && setting.defaultRaw !== '') {
        assert.deepEqual(setting.read(setting.defaultRaw), value, `${setting.env}=${setting.defaultRaw}`);
      }
    }
  });

  test('loadConfig reads every variable of the table and no other', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get: (target, key) => {
        if (typeof key === 'string') read.add(key);
        return Reflect.get(target, key);
      },
    });
    loadConfig(env);
    loadCliConfig(env);
    assert.deepEqual(
      [...read].filter((name) => !NAMES.has(name)),
      [],
      'read but missing from the table',
    );
    assert.deepEqual(
      [...NAMES].filter((name) => !read.has(name)),
      [],
      'in the table but never read',
    );
  });
});

describe('loadConfig', () => {
  test('gives the Config of today from an empty environment: same shape, same defaults', () => {
    const { contentWorkers, tenants, ...config } = loadConfig({});
    assert.equal(contentWorkers, Math.max(1, Math.min(os.availableParallelism(), 8)));
    assert.ok(tenants.open, 'no key declared: one open tenant');
    assert.deepEqual(tenants.defaults, {
      scrapes: 16,
      jobs: 20,
      sessions: 5,
      monitors: 100,
      minMonitorIntervalSeconds: 300,
      agentRuns: 4,
      pagesPerDay: 0,
      llmTokensPerDay: 0,
    });
    assert.deepEqual(config, {
      host: '127.0.0.1',
      port: 3002,
      logLevel: 'info',
      allowPrivateNetworks: false,
      bodyLimitBytes: 1024 * 1024,
      maxResponseBytes: 10 * 1024 * 1024,
      maxDecompressedBytes: 30 * 1024 * 1024,
      maxRedirects: 10,
      maxRetries: 2,
      maxRetryAfterMs: 60_000,
      userAgent: 'chromium',
      httpsClient: 'chromium',
      contentWorkerHeapMb: 512,
      contentTaskGraceMs: 5000,
      crawlMinDelayMs: 250,
      crawlMaxDelayMs: 30_000,
      crawlConcurrency: 8,
      crawlHostConcurrency: 4,
      crawlMaxPages: 100_000,
      extractConcurrency: { value: 5 },
      llmMaxInputChars: 60_000,
      maxAgentTokens: 200_000,
      search: {
        provider: 'duckduckgo',
        searxngUrl: null,
        duckduckgoUrl: 'https://html.duckduckgo.com/html/',
        braveUrl: 'https://api.search.brave.com/res/v1/web/search',
        braveApiKey: null,
      },
      chromiumPath: '/usr/bin/chromium',
      browserMaxPages: 4,
      maxBrowserSessions: 5,
      browserExecuteCode: false,
      browserCodeMemoryBytes: 1024 * 1024 * 1024,
      browserCodeCpuSeconds: 60,
      sessionIsolation: 'auto',
      sessionMemoryBytes: 1024 * 1024 * 1024,
      sessionDiskBytes: 256 * 1024 * 1024,
      maxSessionContexts: 4,
      maxSessionPages: 20,
      shutdownTimeoutMs: 10_000,
      maxConcurrentRequests: 64,
      maxConcurrentCrawls: 4,
      maxQueuedRequests: 256,
      maxHtmlDepth: 512,
      maxHtmlNodes: 1_000_000,
      trustProxy: false,
      allowedHosts: ['localhost', '127.0.0.1', '::1'],
      redis: null,
      dataDir: './data',
      jobTtlMs: 24 * 3_600_000,
      cacheTtlMs: 168 * 3_600_000,
      mcpMaxChars: 100_000,
      shareCacheAcrossTenants: false,
      maxDocumentPages: 500,
      maxDocumentBytes: 24 * 1024 * 1024,
      jobPurgeIntervalMs: 600_000,
      maxRunningJobs: 4,
      webhookSecret: null,
      profileTtlDays: 30,
      profileSecret: null,
      llm: null,
      proxies: { basic: [], stealth: [], all: false },
      webBotAuth: null,
    });
  });

  test('composes the nested settings as before', () => {
    const config = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:6379',
      MAX_RUNNING_JOBS: '7',
      METRICS_PORT: '9100',
      OPENAI_BASE_URL: 'http://llm.local/v1',
      API_KEYS: ' k1 ,, k2 ',
      ALLOWED_HOSTS: 'Example.COM, [::1]',
      JOB_TTL_HOURS: '0.5',
      LOG_LEVEL: 'DEBUG',
      SEARCH_PROVIDER: 'Brave',
      BRAVE_API_KEY: 'b',
    });
    assert.deepEqual(config.redis, {
      url: 'redis://127.0.0.1:6379',
      workers: 7,
      metricsPort: 9100,
      shares: 2,
      stalledMs: 30_000,
      leaseMs: 60_000,
      fleet: null,
    });
    // FLEET_SECRET turns forwarding on; the advertised address defaults to this process's own.
    const fleet = (env: Record<string, string>) =>
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', FLEET_SECRET: 's', ...env }).redis?.fleet;
    assert.deepEqual(fleet({ HOST: '10.0.0.5', PORT: '4000' }), {
      advertiseUrl: 'http://10.0.0.5:4000',
      secret: 's',
    });
    assert.equal(fleet({ HOST: '0.0.0.0' })?.advertiseUrl, `http://${os.hostname()}:3002`);
    assert.equal(fleet({ HOST: '::1' })?.advertiseUrl, 'http://[::1]:3002');
    assert.equal(
      fleet({ ADVERTISE_URL: 'https://api-2.internal:8443/' })?.advertiseUrl,
      'https://api-2.internal:8443',
    );
    assert.deepEqual(config.llm, { baseUrl: 'http://llm.local/v1', apiKey: undefined, model: 'gpt-4o-mini' });
    assert.deepEqual(
      config.tenants.names().sort(),
      ['admin', 'default', 'key-015f7e6bc5ae', 'key-6ab9f1eb8f7d'].sort(),
    );
    assert.deepEqual(config.allowedHosts, ['example.com', '::1']);
    assert.equal(config.jobTtlMs, 1_800_000);
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.search.provider, 'brave');
    assert.equal(loadConfig({ ALLOWED_HOSTS: '*' }).allowedHosts, null);
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).allowedHosts, null);
    assert.equal(loadConfig({ TRUST_PROXY: 'yes' }).allowedHosts, null);
    assert.equal(loadConfig({ REDIS_URL: 'rediss://r', WORKERS: '0' }).redis?.workers, 0);
  });

  test('the pagewright command keeps jobs under ~/.pagewright and reads its key', () => {
    const config = loadCliConfig({ PAGEWRIGHT_API_KEY: 'cli' });
    assert.equal(config.dataDir, path.join(os.homedir(), '.pagewright'));
    assert.equal(config.apiKey, 'cli');
    assert.equal(loadCliConfig({ DATA_DIR: '/srv/pw' }).dataDir, '/srv/pw');
  });
});

describe('an invalid value stops the service with a message naming the variable', () => {
  test('each kind: int, bytes, bool, hours, list, URL, enum', () => {
    refuses({ PORT: '70000' }, 'PORT'); // out of range
    refuses({ PORT: 'abc' }, 'PORT'); // not a number
    refuses({ MAX_REDIRECTS: '2.5' }, 'MAX_REDIRECTS'); // not an integer
    refuses({ MAX_DOCUMENT_BYTES: '1000' }, 'MAX_DOCUMENT_BYTES');
    refuses({ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY');
    refuses({ JOB_TTL_HOURS: '0' }, 'JOB_TTL_HOURS');
    refuses({ CACHE_TTL_HOURS: 'a week' }, 'CACHE_TTL_HOURS');
    refuses({ API_KEYS: ' , ' }, 'API_KEYS');
    refuses({ ALLOWED_HOSTS: 'example.com:8080' }, 'ALLOWED_HOSTS');
    refuses({ ALLOWED_HOSTS: 'https://example.com' }, 'ALLOWED_HOSTS');
    refuses({ ALLOWED_HOSTS: 'example.com,*' }, 'ALLOWED_HOSTS');
    refuses({ REDIS_URL: 'localhost:6379' }, 'REDIS_URL');
    refuses({ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL');
    refuses({ OPENAI_BASE_URL: 'llm.local/v1' }, 'OPENAI_BASE_URL');
    refuses({ SEARXNG_URL: 'ftp://searxng' }, 'SEARXNG_URL');
    refuses({ DUCKDUCKGO_URL: 'not a url' }, 'DUCKDUCKGO_URL');
    refuses({ BRAVE_SEARCH_URL: 'file:///etc/passwd' }, 'BRAVE_SEARCH_URL');
    refuses({ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL');
    refuses({ SEARCH_PROVIDER: 'bing' }, 'SEARCH_PROVIDER');
    refuses({ SEARCH_PROVIDER: 'brave' }, 'BRAVE_API_KEY'); // a provider without what it needs
    refuses({ WEB_BOT_AUTH_KEY: '{"kty":"OKP","crv":"Ed25519","x":"a","d":"b"}' }, 'WEB_BOT_AUTH_AGENT');
    const agent = 'https://a.test';
    refuses({ WEB_BOT_AUTH_KEY: '/nonexistent/key.jwk', WEB_BOT_AUTH_AGENT: agent }, 'WEB_BOT_AUTH_KEY');
    refuses({ WEB_BOT_AUTH_KEY: '{"kty":"RSA"}', WEB_BOT_AUTH_AGENT: agent }, 'WEB_BOT_AUTH_KEY');
    refuses({ WEB_BOT_AUTH_AGENT: 'http://a.test' }, 'WEB_BOT_AUTH_AGENT'); // the draft asks for https
  });

  test('every setting of each kind refuses a value of the wrong kind', () => {
    const wrong: Partial<Record<Setting<unknown>['kind'], string>> = {
      int: 'many',
      bytes: 'lots',
      bool: 'perhaps',
      hours: '-1',
      url: 'no scheme',
      enum: 'none-of-these',
    };
    for (const setting of TABLE) {
      const value = wrong[setting.kind];
      if (value === undefined) continue;
      if (setting.checked === 'request') {
        const config = loadConfig({ [setting.env]: value });
        assert.ok('error' in config.extractConcurrency);
        assert.match(config.extractConcurrency.error, new RegExp(setting.env));
      } else {
        refuses({ [setting.env]: value }, setting.env);
      }
    }
  });

  test('settings that only apply with REDIS_URL are checked without it too', () => {
    refuses({ WORKERS: 'all' }, 'WORKERS');
  });

  test('every invalid variable is named at once', () => {
    const error = refuses({ PORT: 'abc', LOG_LEVEL: 'loud', MAX_REDIRECTS: '99' }, 'PORT');
    assert.match(error.message, /LOG_LEVEL/);
    assert.match(error.message, /MAX_REDIRECTS must be an integer from 0 to 50, got '99'/);
  });

  test('messages never quote a key or a password', () => {
    assert.doesNotMatch(refuses({ API_KEYS: 'k1,bad\u0001key' }, 'API_KEYS').message, /k1|bad/);
    assert.doesNotMatch(
      refuses({ REDIS_URL: 'http://user:hunter2@redis:6379' }, 'REDIS_URL').message,
      /hunter2/,
    );
  });

  test('SERVICE_EXTRACT_CONCURRENCY is the exception: checked at request time (the product specification)', () => {
    assert.equal(SETTINGS.extractConcurrency.checked, 'request');
    assert.deepEqual(loadConfig({ SERVICE_EXTRACT_CONCURRENCY: '11' }).extractConcurrency, {
      error: "SERVICE_EXTRACT_CONCURRENCY must be an integer from 1 to 10, got '11'",
    });
    assert.deepEqual(loadConfig({ SERVICE_EXTRACT_CONCURRENCY: '3' }).extractConcurrency, { value: 3 });
    for (const setting of TABLE) {
      if (setting !== SETTINGS.extractConcurrency) assert.equal(setting.checked, 'startup', setting.env);
    }
  });

  test('the real entry point exits 1 with the message', async (t) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pagewright-config-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    // The inherited environment without any setting, so that only these decide.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !NAMES.has(name)));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...env, PORT: 'abc', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^Configuration error: PORT must be an integer from 0 to 65535, got 'abc'$/m);
  });
});
