// Normal pages under load while one request in ten is a pathological page (issue 13): the latency of the
// normal pages beside a clean run of the same load, measured by one client loop per connection.
import { Agent, request } from 'undici';

const PATHOLOGICAL = [
  '/hostile/nested-divs',
  '/hostile/nested-tables',
  '/hostile/unclosed-inline',
  '/hostile/unclosed-lists',
];

interface Run {
  normal: number[];
  hostile: Map<number, number>;
  errors: number;
}

async function run(serviceUrl: string, siteUrl: string, connections: number, ms: number, mix: boolean) {
  const agent = new Agent({ connections });
  const out: Run = { normal: [], hostile: new Map(), errors: 0 };
  let sent = 0;
  const end = Date.now() + ms;
  const lane = async (): Promise<void> => {
    while (Date.now() < end) {
      const n = sent++;
      const hostile = mix && n % 10 === 9;
      const path = hostile ? PATHOLOGICAL[Math.floor(n / 10) % PATHOLOGICAL.length]! : '/news/typical';
      const started = performance.now();
      const res = await request(`${serviceUrl}/api/v1/scrape`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: siteUrl + path, engine: 'http', timeout: 4000 }),
        dispatcher: agent,
      });
      await res.body.dump();
      const took = performance.now() - started;
      if (hostile) out.hostile.set(res.statusCode, (out.hostile.get(res.statusCode) ?? 0) + 1);
      else if (res.statusCode === 200) out.normal.push(took);
      else out.errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, lane));
  await agent.close();
  return out;
}

/** /health latency while every content worker converts a slow page (3 MB, within every limit). */
async function healthWhileBusy(serviceUrl: string, siteUrl: string): Promise<number[]> {
  const busy = [0, 1].map(() =>
    fetch(`${serviceUrl}/api/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${siteUrl}/hostile/heavy`, engine: 'http', timeout: 3000 }),
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const took: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await (await fetch(`${serviceUrl}/health`)).text();
    took.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await Promise.all(busy);
  return took.sort((a, b) => a - b);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export async function mixedLoadBench(
  serviceUrl: string,
  siteUrl: string,
  seconds: number,
): Promise<string[]> {
  await run(serviceUrl, siteUrl, 4, 2000, true); // warm-up: workers, pools, JIT
  const clean = await run(serviceUrl, siteUrl, 16, seconds * 1000, false);
  const mixed = await run(serviceUrl, siteUrl, 16, seconds * 1000, true);
  const row = (name: string, r: Run): string => {
    const sorted = [...r.normal].sort((a, b) => a - b);
    const hostile = [...r.hostile].map(([status, n]) => `${n} × ${status}`).join(', ') || '—';
    return `| ${name} | ${sorted.length} | ${percentile(sorted, 50).toFixed(0)} ms | ${percentile(sorted, 99).toFixed(0)} ms | ${r.errors} | ${hostile} |`;
  };
  const p99 = (r: Run): number =>
    percentile(
      [...r.normal].sort((a, b) => a - b),
      99,
    );
  const health = await healthWhileBusy(serviceUrl, siteUrl);
  return [
    '| run | normal pages answered | normal p50 | normal p99 | normal errors | pathological answers |',
    '|---|---|---|---|---|---|',
    row('clean: every request a typical 100 KB page', clean),
    row('mixed: one request in ten a 1-2 MB pathological page', mixed),
    '',
    `Normal p99 mixed/clean: ${(p99(mixed) / Math.max(1, p99(clean))).toFixed(2)} (target ≤ 2).`,
    '',
    `\`GET /health\` while both content workers convert a slow 3 MB page: p50 ${percentile(health, 50).toFixed(1)} ms, max ${health.at(-1)!.toFixed(1)} ms over ${health.length} requests (target < 50 ms).`,
  ];
}
