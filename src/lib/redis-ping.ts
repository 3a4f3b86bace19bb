import { Redis } from 'ioredis';

/** Null when Redis at `url` answers PING within `timeoutMs`, else why not. */
export async function pingRedis(url: string, timeoutMs = 5000): Promise<string | null> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined); // reported below
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    redis.disconnect();
  }
}
