import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Figures read when Prometheus scrapes, from the parts that own them. */
export interface MetricSources {
  browser(): { active: number; max: number; launches: number } | null;
  content(): { threads: number; queued: number; inFlight: number };
  queue(): Promise<{ active: number; waiting: number }>;
  jobsRunning(): Promise<number>;
}

/** Each usage counter of a tenant (src/tenants/usage.ts): its metric, and what its count is divided by. */
const TENANT_USAGE = {
  pages: ['pagewright_tenant_pages_total', 'Pages fetched from the web, by tenant', 1],
  browserMs: [
    'pagewright_tenant_browser_seconds_total',
    'Seconds browser renders and browser sessions held a browser page, by tenant',
    1000,
  ],
  documents: ['pagewright_tenant_documents_total', 'Documents (PDF, Office) parsed, by tenant', 1],
  llmTokens: ['pagewright_tenant_llm_tokens_total', "Tokens of the server LLM's answers, by tenant", 1],
  credits: ['pagewright_tenant_credits_total', 'Firecrawl credits (page documents built), by tenant', 1],
} as const;
type TenantCounter = keyof typeof TENANT_USAGE;

function tenantCounters(
  registry: Registry,
): Record<TenantCounter, { counter: Counter<'tenant'>; per: number }> {
  const entries = Object.entries(TENANT_USAGE).map(([field, [name, help, per]]) => [
    field,
    { counter: new Counter({ name, help, labelNames: ['tenant'] as const, registers: [registry] }), per },
  ]);
  return Object.fromEntries(entries) as Record<TenantCounter, { counter: Counter<'tenant'>; per: number }>;
}

/**
 * The service's Prometheus metrics, one registry per app (tests run several apps in one process). Labels are
 * bounded by construction: route templates (never a path as sent), engine names, error codes, job kinds and
 * states, never a URL or anything a caller wrote.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'pagewright_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status code',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'pagewright_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly pages = new Counter({
    name: 'pagewright_pages_fetched_total',
    help: "Pages fetched, by engine and outcome (ok, or the error's code)",
    labelNames: ['engine', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly bytes = new Counter({
    name: 'pagewright_fetched_bytes_total',
    help: 'Bytes of page bodies fetched (after decompression), by engine',
    labelNames: ['engine'] as const,
    registers: [this.registry],
  });
  private readonly taskSeconds = new Histogram({
    name: 'pagewright_content_task_duration_seconds',
    help: 'Time a content task took in the content workers (queue wait included), by kind',
    labelNames: ['kind'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly taskAborts = new Counter({
    name: 'pagewright_content_task_aborts_total',
    help: 'Content tasks given up: deadline (the caller was answered with a timeout), worker_ended (still running past the grace period)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly jobsFinished = new Counter({
    name: 'pagewright_jobs_finished_total',
    help: 'Jobs that ended in this process, by kind and final state',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
  });
  private readonly jobsStarted = new Counter({
    name: 'pagewright_jobs_started_total',
    help: 'Jobs accepted by this process, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly webhooks = new Counter({
    name: 'pagewright_webhook_deliveries_total',
    help: 'Webhook deliveries: delivered, or failed (dropped after every retry)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly sessionsCreated = new Counter({
    name: 'pagewright_browser_sessions_created_total',
    help: 'Browser sessions started by this process',
    registers: [this.registry],
  });
  private readonly sessionsEnded = new Counter({
    name: 'pagewright_browser_sessions_ended_total',
    help: 'Browser sessions ended by this process, by cause (ttl, idle, deleted, error, shutdown)',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });
  private readonly llmTokens = new Counter({
    name: 'pagewright_llm_tokens_total',
    help: "Tokens of the server LLM's answers, by purpose (format, extract, llmstxt, agent, session, crawl_prompt...) and kind (prompt, completion)",
    labelNames: ['purpose', 'kind'] as const,
    registers: [this.registry],
  });
  /** Tokens counted since the process started (Firecrawl's token-usage route reads them). */
  private tokensSoFar = 0;
  private readonly cdpRefusals = new Counter({
    name: 'pagewright_cdp_messages_refused_total',
    help: "CDP commands of browser sessions' clients refused by the CDP proxy's filter",
    registers: [this.registry],
  });
  /** The tenants labelled by name; any other tenant's usage counts as `other`, so labels stay bounded. */
  private tenantNames = new Set<string>();
  private readonly tenantUsage = tenantCounters(this.registry);

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'pagewright_' });
  }

  /** Gauges read at scrape time from `sources`. */
  watch(sources: MetricSources): void {
    const registers = [this.registry];
    new Gauge({
      name: 'pagewright_browser_pages',
      help: 'Browser pages open now (state=active) and the pool size (state=max)',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const stats = sources.browser();
        this.set({ state: 'active' }, stats?.active ?? 0);
        this.set({ state: 'max' }, stats?.max ?? 0);
      },
    });
    new Gauge({
      name: 'pagewright_browser_launches',
      help: 'Times the browser was launched since the process started',
      registers,
      collect() {
        this.set(sources.browser()?.launches ?? 0);
      },
    });
    new Gauge({
      name: 'pagewright_content_workers',
      help: 'Content worker threads (state=threads), tasks queued and tasks running',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const stats = sources.content();
        this.set({ state: 'threads' }, stats.threads);
        this.set({ state: 'queued' }, stats.queued);
        this.set({ state: 'in_flight' }, stats.inFlight);
      },
    });
    new Gauge({
      name: 'pagewright_job_queue',
      help: 'Jobs being worked (state=active) and waiting for their turn (state=waiting); the fleet-wide queue with Redis',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const counts = await sources.queue().catch(() => ({ active: 0, waiting: 0 }));
        this.set({ state: 'active' }, counts.active);
        this.set({ state: 'waiting' }, counts.waiting);
      },
    });
    new Gauge({
      name: 'pagewright_jobs_running',
      help: 'Listed jobs in the scraping state, in the job store',
      registers,
      async collect() {
        this.set(await sources.jobsRunning().catch(() => 0));
      },
    });
  }

  /** The browser sessions open in this process, read at scrape time. */
  watchSessions(active: () => number): void {
    new Gauge({
      name: 'pagewright_browser_sessions_active',
      help: 'Browser sessions open in this process',
      registers: [this.registry],
      collect() {
        this.set(active());
      },
    });
  }

  sessionCreated(): void {
    this.sessionsCreated.inc();
  }

  sessionEnded(cause: string): void {
    this.sessionsEnded.inc({ cause });
  }

  llmUsed(purpose: string, usage: { prompt: number; completion: number }): void {
    if (usage.prompt > 0) this.llmTokens.inc({ purpose, kind: 'prompt' }, usage.prompt);
    if (usage.completion > 0) this.llmTokens.inc({ purpose, kind: 'completion' }, usage.completion);
    this.tokensSoFar += usage.prompt + usage.completion;
  }

  /** LLM tokens used by this process since it started. */
  get tokensUsed(): number {
    return this.tokensSoFar;
  }

  cdpRefused(): void {
    this.cdpRefusals.inc();
  }

  /** Names the tenants labelled as themselves (the declared ones); their counters start at zero. */
  labelTenants(names: readonly string[]): void {
    this.tenantNames = new Set(names);
    for (const { counter } of Object.values(this.tenantUsage))
      for (const tenant of names) counter.inc({ tenant }, 0);
  }

  /** What a tenant used, as src/tenants/usage.ts counts it (browser time in ms). */
  tenantUsed(tenant: string, counts: Partial<Record<TenantCounter, number>>): void {
    const label = this.tenantNames.has(tenant) ? tenant : 'other';
    for (const [field, n] of Object.entries(counts)) {
      const usage = this.tenantUsage[field as TenantCounter];
      if (usage && n > 0) usage.counter.inc({ tenant: label }, n / usage.per);
    }
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.requestSeconds.observe({ route, method }, seconds);
  }

  pageFetched(engine: string, outcome: string, bytes: number): void {
    this.pages.inc({ engine, outcome });
    if (bytes > 0) this.bytes.inc({ engine }, bytes);
  }

  contentTask(kind: string, seconds: number): void {
    this.taskSeconds.observe({ kind }, seconds);
  }

  contentAbort(reason: 'deadline' | 'worker_ended'): void {
    this.taskAborts.inc({ reason });
  }

  jobStarted(kind: string): void {
    this.jobsStarted.inc({ kind });
  }

  jobFinished(kind: string, state: string): void {
    this.jobsFinished.inc({ kind, state });
  }

  webhook(outcome: 'delivered' | 'failed'): void {
    this.webhooks.inc({ outcome });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
