import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('gives the documented defaults on an empty environment (embedded mode)', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      serviceName: 'Legwork',
      databaseUrl: null,
      databasePoolSize: 10,
      dataDir: './.data',
      redisUrl: null,
      sessionTtlSeconds: 86400,
      adminToken: null,
      rfqEnabled: true,
      takerFeeBps: 3,
      tradeFeeCapBps: 1250,
      takerFeeToleranceBps: 100,
      marketDataMaxAgeSeconds: 30,
      rfqTtlSeconds: 120,
      maxOpenRfqs: 50,
      rfqRatePerSecond: 50,
      rfqRateBurst: 100,
      lockUpsideBps: 10000,
      nonceRatePerMinute: 10,
      trustProxy: 0,
      logLevel: 'info',
      authRatePerMinute: 30,
      maxConnectionsPerIp: 50,
      metricsToken: null,
      sessionMaxSeconds: 604800,
      production: false,
      rfqHistoryDays: 30,
      competitionMaxMakers: 20,
    });
    expect(Buffer.byteLength(config.jwtSecret)).toBeGreaterThanOrEqual(32);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ RFQ_ENABLED: 'yes' }, 'RFQ_ENABLED'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://localhost/x' }, 'JWT_SECRET'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    [{ LOG_LEVEL: 'trace' }, 'LOG_LEVEL'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '-1' }, 'TRUST_PROXY'],
    [{ AUTH_RATE_PER_MINUTE: '0' }, 'AUTH_RATE_PER_MINUTE'],
    [{ MAX_CONNECTIONS_PER_IP: 'many' }, 'MAX_CONNECTIONS_PER_IP'],
    [{ PUBLIC_RATE_PER_SECOND: '0' }, 'PUBLIC_RATE_PER_SECOND'],
    [{ PUBLIC_RATE_BURST: 'lots' }, 'PUBLIC_RATE_BURST'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ NONCE_RATE_PER_MINUTE: '-1' }, 'NONCE_RATE_PER_MINUTE'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ EXCHANGE_SIGNING_KEY: 'ab' }, 'EXCHANGE_SIGNING_KEY'],
    [{ RFQ_HISTORY_DAYS: 'a month' }, 'RFQ_HISTORY_DAYS'],
    [{ RFQ_HISTORY_DAYS: '0' }, 'RFQ_HISTORY_DAYS'],
    [{ RFQ_HISTORY_DAYS: '-1' }, 'RFQ_HISTORY_DAYS'],
    [{ RFQ_HISTORY_DAYS: '1e3' }, 'RFQ_HISTORY_DAYS'],
    [{ DATABASE_URL: 'postgres://localhost/x', JWT_SECRET: 'x'.repeat(32) }, 'EXCHANGE_SIGNING_KEY'],
    [{ SESSION_MAX_SECONDS: '0' }, 'SESSION_MAX_SECONDS'],
    [{ SESSION_MAX_SECONDS: '1.5' }, 'SESSION_MAX_SECONDS'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`\\b${variable}\\b`));
  });

  it('requires a JWT secret with a database URL', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://localhost/x',
      JWT_SECRET: 'x'.repeat(32),
      TRUST_PROXY: 'true',
      METRICS_TOKEN: 'm'.repeat(32),
      EXCHANGE_SIGNING_KEY: '11'.repeat(32),
    });
    expect(config.exchangeSigningKey?.toString('hex')).toBe('11'.repeat(32));
    expect(config.databaseUrl).toBe('postgres://localhost/x');
    expect(config.trustProxy).toBe(1);
  });

  it('reads TRUST_PROXY as a count of trusted proxies', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '1', METRICS_TOKEN: 'm'.repeat(32) }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '3', METRICS_TOKEN: 'm'.repeat(32) }).trustProxy).toBe(3);
  });

  const METRICS_TOKEN = 'm'.repeat(32);
  const SERVICES = { DATABASE_URL: 'postgres://db/x', JWT_SECRET: 'x'.repeat(32), EXCHANGE_SIGNING_KEY: '11'.repeat(32), REDIS_URL: 'redis://r:6379' };

  it('refuses the embedded database and in-process jobs under NODE_ENV=production, naming DATABASE_URL and REDIS_URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/\bDATABASE_URL\b.*NODE_ENV=production/);
    expect(() => loadConfig({ NODE_ENV: 'production', ...SERVICES, REDIS_URL: '' })).toThrow(/\bREDIS_URL\b.*NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: 'production', ...SERVICES }).production).toBe(true);
    // Outside production the embedded default stays the default.
    expect(loadConfig({ NODE_ENV: 'development' }).production).toBe(false);
  });

  it.each(['0.0.0.0', '::', '192.0.2.10', 'exchange.example'])('refuses HOST=%s without METRICS_TOKEN', (host) => {
    expect(() => loadConfig({ HOST: host })).toThrow(ConfigError);
    expect(() => loadConfig({ HOST: host })).toThrow(/\bMETRICS_TOKEN\b.*not a loopback address/);
    expect(loadConfig({ HOST: host, METRICS_TOKEN }).host).toBe(host);
  });

  // docs/spec/design.md section 20: the attack was TRUST_PROXY=1 on a loopback HOST, /metrics open through the proxy.
  it.each(['true', '1', '2'])('refuses TRUST_PROXY=%s on a loopback HOST without METRICS_TOKEN', (trust) => {
    expect(() => loadConfig({ HOST: '127.0.0.1', TRUST_PROXY: trust })).toThrow(/\bMETRICS_TOKEN\b.*TRUST_PROXY/);
    expect(loadConfig({ HOST: '127.0.0.1', TRUST_PROXY: trust, METRICS_TOKEN }).metricsToken).toBe(METRICS_TOKEN);
  });

  it.each(['false', '0', ''])('starts with TRUST_PROXY=%s on a loopback HOST without METRICS_TOKEN', (trust) => {
    expect(loadConfig({ HOST: '127.0.0.1', TRUST_PROXY: trust }).metricsToken).toBeNull();
  });

  it('reads REPLAY_EVENTS_PER_SECOND and QUERY_RATE_PER_SECOND / QUERY_RATE_BURST (defaults 5000, 50, 100)', () => {
    expect(loadConfig({})).toMatchObject({ replayEventsPerSecond: 5000, queryRatePerSecond: 50, queryRateBurst: 100 });
    expect(loadConfig({ REPLAY_EVENTS_PER_SECOND: '10', QUERY_RATE_PER_SECOND: '2', QUERY_RATE_BURST: '3' })).toMatchObject({
      replayEventsPerSecond: 10,
      queryRatePerSecond: 2,
      queryRateBurst: 3,
    });
    expect(() => loadConfig({ REPLAY_EVENTS_PER_SECOND: '0' })).toThrow(/REPLAY_EVENTS_PER_SECOND/);
    expect(() => loadConfig({ QUERY_RATE_BURST: 'x' })).toThrow(/QUERY_RATE_BURST/);
  });

  it.each(['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])('starts on loopback HOST=%s without METRICS_TOKEN', (host) => {
    expect(loadConfig({ HOST: host }).metricsToken).toBeNull();
  });

  it('reads SESSION_MAX_SECONDS', () => {
    expect(loadConfig({ SESSION_MAX_SECONDS: '3600' }).sessionMaxSeconds).toBe(3600);
  });

  it('reads RFQ_HISTORY_DAYS as a decimal number of days', () => {
    expect(loadConfig({ RFQ_HISTORY_DAYS: '365' }).rfqHistoryDays).toBe(365);
    expect(loadConfig({ RFQ_HISTORY_DAYS: '0.0001' }).rfqHistoryDays).toBe(0.0001);
  });
});
