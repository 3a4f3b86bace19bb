import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The Node flags the service runs with: those of `npm start` in package.json, where they are declared once (the
 * collector's settings, docs/architecture.md "Memory and the collector").
 */
export function serviceNodeFlags(packageJson = new URL('../../package.json', import.meta.url)): string[] {
  const { scripts } = JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts: { start: string } };
  return scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/**
 * `pagewright serve` and `pagewright worker`: the entry runs in this process when it already has the service's
 * Node flags; else this process becomes one that has them (`execve`: the same process, signals and exit; V8
 * reads the flags as it starts).
 */
export async function runService(entry: 'main' | 'worker'): Promise<void> {
  const flags = serviceNodeFlags();
  // Windows has no execve: the service runs there without the flags.
  if (!process.execve || flags.every((flag) => process.execArgv.includes(flag))) {
    await (entry === 'main' ? import('../main.js') : import('../worker.js'));
    return;
  }
  const script = fileURLToPath(new URL(`../${entry}.js`, import.meta.url));
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, script]);
}
