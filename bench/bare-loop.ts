// The physical limit of a crawl: undici fetches /a/0 … /a/N-1, `concurrency` at a time, and reads each body,
// with no parsing. Run by cpu-per-page.ts in a process of its own, so that its CPU is counted alone: it says
// "ready", is told the site, and answers the pages fetched.
import { Agent, request } from 'undici';

interface Order {
  base: string;
  pages: number;
  concurrency: number;
}

process.once('message', async (order: Order) => {
  const agent = new Agent({ connections: order.concurrency });
  let next = 0;
  let fetched = 0;
  const lane = async (): Promise<void> => {
    while (next < order.pages) {
      const n = next++;
      const res = await request(`${order.base}/a/${n}`, { dispatcher: agent });
      await res.body.text();
      if (res.statusCode === 200) fetched++;
    }
  };
  await Promise.all(Array.from({ length: order.concurrency }, lane));
  await agent.close();
  process.send!(fetched);
});
process.send!('ready');
