import Redis from 'ioredis';

/**
 * Deletes every Redis key under a prefix (SCAN + DEL, never FLUSHALL: other deployments, test
 * files and benchmarks share the server). Returns how many keys went. Used by tests and the bench.
 */
export async function deleteRedisPrefix(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
  return deleted;
}
