import { readFileSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../config/kinds.js';
import { ADMIN_TENANT, DEFAULT_TENANT, OPEN_CALLER } from './tenant.js';
import type { Caller, Tenant, TenantLimits } from './tenant.js';
import { TENANT_NAME, keyDigest, readTenantsFile } from './tenants-file.js';

/** Where tenants are declared: API_KEYS's items, ADMIN_API_KEYS, TENANTS_FILE, and the default limits. */
export interface TenantSources {
  apiKeys: string[];
  adminApiKeys: string[];
  tenantsFile: string | null;
  defaults: TenantLimits;
}

/** The name of a bare key's tenant: a hash of it, so that records name the tenant without holding the key. */
const bareName = (digest: Buffer): string => `key-${digest.toString('hex').slice(0, 12)}`;

/**
 * Every tenant and its keys, declared once at start; keys are kept and compared as SHA-256 digests only. The
 * service is open (no keys at all) or keyed: then every request names a tenant by its key, and operator keys
 * name the operators, who see every tenant's work.
 */
export class TenantDirectory {
  private readonly byName = new Map<string, Tenant>();
  private readonly admins: Buffer[];

  constructor(
    tenants: Tenant[],
    admins: Buffer[],
    readonly defaults: TenantLimits,
  ) {
    for (const t of tenants) this.byName.set(t.name, t);
    this.admins = admins;
  }

  /** Builds the directory from the settings; a mistake is a ConfigError (a tenants file's names its line). */
  static fromSources(sources: TenantSources): TenantDirectory {
    const tenants = new Map<string, Tenant>();
    const seen = new Map<string, string>();
    const add = (name: string, digest: Buffer, where: string): void => {
      const hex = digest.toString('hex');
      const holder = seen.get(hex);
      if (holder && holder !== name)
        throw new ConfigError(`${where}: a key of \`${name}\` is also a key of \`${holder}\``);
      seen.set(hex, name);
      const tenant = tenants.get(name) ?? { name, keyDigests: [], limits: { ...sources.defaults } };
      tenant.keyDigests.push(digest);
      tenants.set(name, tenant);
    };
    if (sources.tenantsFile !== null) {
      let text: string;
      try {
        text = readFileSync(sources.tenantsFile, 'utf8');
      } catch (err) {
        throw new ConfigError(
          `TENANTS_FILE ${sources.tenantsFile} cannot be read: ${(err as Error).message}`,
        );
      }
      for (const t of readTenantsFile(sources.tenantsFile, text, sources.defaults)) {
        for (const d of t.keyDigests) add(t.name, d, `TENANTS_FILE ${sources.tenantsFile}`);
        tenants.get(t.name)!.limits = t.limits;
      }
    }
    sources.apiKeys.forEach((item, i) => {
      const colon = item.indexOf(':');
      const named = colon > 0 && TENANT_NAME.test(item.slice(0, colon)) && colon < item.length - 1;
      const digest = keyDigest(named ? item.slice(colon + 1) : item);
      const name = named ? item.slice(0, colon) : bareName(digest);
      if (name === ADMIN_TENANT)
        throw new ConfigError(`API_KEYS: key ${i + 1}: \`${ADMIN_TENANT}\` is the operators' tenant`);
      add(name, digest, `API_KEYS: key ${i + 1}`);
    });
    const admins = sources.adminApiKeys.map((k) => keyDigest(k));
    for (const [i, d] of admins.entries()) {
      if (seen.has(d.toString('hex')))
        throw new ConfigError(`ADMIN_API_KEYS: key ${i + 1} is also a tenant's key`);
    }
    return new TenantDirectory([...tenants.values()], admins, sources.defaults);
  }

  /** True when no key is declared: every request is the one tenant `default`, which sees everything. */
  get open(): boolean {
    return this.byName.size === 0 && this.admins.length === 0;
  }

  /** The declared tenants' names (the bounded set metrics label with), `default` and `admin` included. */
  names(): string[] {
    return [...new Set([DEFAULT_TENANT, ADMIN_TENANT, ...this.byName.keys()])];
  }

  /** A tenant's limits; a tenant declared nowhere (`default`, `admin`, an old record's) has the defaults. */
  limits(name: string): TenantLimits {
    return this.byName.get(name)?.limits ?? this.defaults;
  }

  /** The caller a key's digest stands for, or null; every digest is compared, in constant time. */
  callerOf(digest: Buffer): Caller | null {
    if (this.open) return OPEN_CALLER;
    let found: Caller | null = null;
    for (const admin of this.admins)
      if (timingSafeEqual(admin, digest)) found = { tenant: ADMIN_TENANT, admin: true };
    for (const tenant of this.byName.values()) {
      for (const key of tenant.keyDigests)
        if (timingSafeEqual(key, digest)) found ??= { tenant: tenant.name, admin: false };
    }
    return found;
  }
}
