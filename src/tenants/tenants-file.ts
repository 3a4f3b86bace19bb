import { createHash } from 'node:crypto';
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node, Pair, YAMLMap } from 'yaml';
import { ConfigError } from '../config/kinds.js';
import { ADMIN_TENANT, LIMIT_NAMES } from './tenant.js';
import type { Tenant, TenantLimits } from './tenant.js';

/** A tenant's name: what records, logs, usage and metric labels carry. */
export const TENANT_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/i;
const DIGEST = /^sha256:([0-9a-f]{64})$/i;

/** A key's digest as the service keeps it: a `sha256:<hex>` entry as it is, any other entry hashed. */
export function keyDigest(entry: string): Buffer {
  const given = DIGEST.exec(entry.trim());
  return given ? Buffer.from(given[1]!, 'hex') : createHash('sha256').update(entry).digest();
}

/**
 * Reads a tenants file (YAML, or JSON, which YAML reads too):
 *
 * ```yaml
 * tenants:
 *   - name: team-a
 *     keys: [sha256:<hex of the key's SHA-256>, another-key]
 *     limits: { scrapes: 8, jobs: 10, sessions: 2, monitors: 20, minMonitorIntervalSeconds: 600,
 *               agentRuns: 2, pagesPerDay: 10000, llmTokensPerDay: 500000 }
 * ```
 *
 * A mistake is a ConfigError naming the file's line; limits not given are `defaults`.
 */
export function readTenantsFile(file: string, text: string, defaults: TenantLimits): Tenant[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const at = (node: Node | null | undefined): string => {
    const offset = node?.range?.[0];
    return offset === undefined ? file : `${file}:${lines.linePos(offset).line}`;
  };
  const fail = (node: Node | null | undefined, why: string): never => {
    throw new ConfigError(`TENANTS_FILE ${at(node)}: ${why}`);
  };
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    throw new ConfigError(
      `TENANTS_FILE ${file}:${first.linePos?.[0].line ?? '?'}: ${first.message.split('\n')[0]}`,
    );
  }
  const root = doc.contents;
  if (!isMap(root)) return fail(root, 'the file must hold a map with `tenants`, a list');
  const list = fieldsOf(root, ['tenants'], fail).tenants;
  if (!isSeq(list)) return fail(list ?? root, '`tenants` must be a list');
  const names = new Set<string>();
  const keys = new Map<string, string>();
  return list.items.map((item) => {
    if (!isMap(item))
      return fail(item as Node, 'a tenant is a map with `name`, `keys` and optional `limits`');
    const f = fieldsOf(item, ['name', 'keys', 'limits'], fail);
    const name = isScalar(f.name) ? String(f.name.value) : '';
    if (!TENANT_NAME.test(name)) {
      return fail(
        f.name ?? item,
        'a tenant `name` is 1-63 letters, digits, `_`, `.` or `-`, starting with a letter or digit',
      );
    }
    if (name === ADMIN_TENANT)
      return fail(f.name, `\`${ADMIN_TENANT}\` is the operators' tenant (ADMIN_API_KEYS)`);
    if (names.has(name)) return fail(f.name, `tenant \`${name}\` is declared twice`);
    names.add(name);
    if (!isSeq(f.keys) || f.keys.items.length === 0)
      return fail(f.keys ?? item, `tenant \`${name}\` needs \`keys\`, a list of at least one`);
    const keyDigests = f.keys.items.map((k) => {
      const value = isScalar(k) ? String(k.value ?? '') : '';
      if (!value.trim() || /\p{Cc}/u.test(value))
        return fail(k as Node, `a key of \`${name}\` is empty or holds a control character`);
      const digest = keyDigest(value);
      const owner = keys.get(digest.toString('hex'));
      if (owner) return fail(k as Node, `a key of \`${name}\` is also a key of \`${owner}\``);
      keys.set(digest.toString('hex'), name);
      return digest;
    });
    return { name, keyDigests, limits: limitsOf(f.limits, defaults, fail) };
  });
}

type Fail = (node: Node | null | undefined, why: string) => never;

/** The map's values by key; a key not in `allowed` is a mistake named at its line. */
function fieldsOf(map: YAMLMap, allowed: readonly string[], fail: Fail): Record<string, Node | undefined> {
  const fields: Record<string, Node | undefined> = {};
  for (const pair of map.items as Pair<Node, Node>[]) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!allowed.includes(key))
      return fail(
        pair.key,
        `unknown field \`${key}\` (expected ${allowed.map((a) => `\`${a}\``).join(', ')})`,
      );
    fields[key] = pair.value ?? undefined;
  }
  return fields;
}

function limitsOf(node: Node | undefined, defaults: TenantLimits, fail: Fail): TenantLimits {
  if (node === undefined) return { ...defaults };
  if (!isMap(node)) return fail(node, '`limits` must be a map');
  const given = fieldsOf(node, LIMIT_NAMES, fail);
  const limits: TenantLimits = { ...defaults, own: true };
  for (const [name, value] of Object.entries(given)) {
    const n = isScalar(value) ? value.value : undefined;
    // Per day, 0 is no limit; a count of things at once needs room for one.
    const least = name.endsWith('PerDay') ? 0 : 1;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < least) {
      return fail(value, `limits.${name} must be a whole number, ${least} or more`);
    }
    limits[name as (typeof LIMIT_NAMES)[number]] = n;
  }
  return limits;
}
