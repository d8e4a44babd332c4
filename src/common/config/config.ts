import { randomBytes } from 'node:crypto';

/**
 * The one typed, validated configuration object (docs/spec/design.md section 0). Nothing else in the
 * code reads process.env: a bad value stops start-up with a message that names the variable.
 */
export interface AppConfig {
  port: number;
  host: string;
  serviceName: string;
  databaseUrl: string | null;
  /** Connections of the PostgreSQL pool (DATABASE_URL only; the embedded database has one). */
  databasePoolSize: number;
  dataDir: string;
  redisUrl: string | null;
  /** Key prefix of everything this deployment keeps in Redis (queues, pub/sub, rate limits). */
  redisPrefix: string;
  jwtSecret: string;
  sessionTtlSeconds: number;
  /** Absolute lifetime of a session from the wallet signature that began it; resume cannot pass it (docs/spec/design.md section 16). */
  sessionMaxSeconds: number;
  /** NODE_ENV=production: PostgreSQL and Redis are required (docs/spec/design.md section 16). */
  production: boolean;
  adminToken: string | null;
  rfqEnabled: boolean;
  takerFeeBps: number;
  tradeFeeCapBps: number;
  takerFeeToleranceBps: number;
  marketDataMaxAgeSeconds: number;
  rfqTtlSeconds: number;
  maxOpenRfqs: number;
  rfqRatePerSecond: number;
  rfqRateBurst: number;
  lockUpsideBps: number;
  nonceRatePerMinute: number;
  /** Trusted proxies in front (0: none, X-Forwarded-For ignored); TRUST_PROXY true = 1 (docs/spec/design.md section 10). */
  trustProxy: number;
  /** Sign-in attempts per client IP per minute: public/auth, public/session_resume, POST /v1/auth/session. */
  authRatePerMinute: number;
  /** Open WebSocket connections per client IP. */
  maxConnectionsPerIp: number;
  /** Token bucket per client IP over unauthenticated HTTP routes and the public/* reads (docs/spec/design.md section 16). */
  publicRatePerSecond: number;
  publicRateBurst: number;
  /** Replayed events per second per account, all its replays together; the instance's budget is 4x (docs/spec/design.md section 20). */
  replayEventsPerSecond: number;
  /** Token bucket per account over authenticated reads: /query/* and the rfq read methods (docs/spec/design.md section 20). */
  queryRatePerSecond: number;
  queryRateBurst: number;
  /** When set, /metrics requires `Authorization: Bearer <METRICS_TOKEN>`. */
  metricsToken: string | null;
  logLevel: LogLevel;
  /**
   * EXCHANGE_SIGNING_KEY: the 32-byte ed25519 seed that signs fill receipts (docs/spec/design.md 14). null
   * in embedded mode when unset: the key is generated once and kept in DATA_DIR.
   */
  exchangeSigningKey: Buffer | null;
  /** Period of the expiry / stuck-fill / settlement sweep, milliseconds (at most 5 s by design; 2 s so a dead instance's work moves within 10 s: docs/spec/design.md section 11). */
  sweepIntervalMs: number;
  /** Days (a decimal: a test uses seconds) an ended RFQ's history is kept: RFQ_HISTORY_DAYS (docs/spec/design.md 17). */
  rfqHistoryDays: number;
  /** The largest panel of a competitive RFQ: COMPETITION_MAX_MAKERS (docs/spec/design.md 18). */
  competitionMaxMakers: number;
  /** Period of the server's WebSocket pings, milliseconds (20 s by design). */
  wsPingIntervalMs: number;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function present(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (!/^(0|[1-9][0-9]*)$/.test(raw)) throw new ConfigError(name, `must be a whole number, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${raw}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got ${JSON.stringify(raw)}`);
}

/** A decimal number (`30`, `0.5`, `0.0001`) within [min, max] (RFQ_HISTORY_DAYS: at least a second, at most a century). */
function decimal(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (!/^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(raw)) throw new ConfigError(name, `must be a decimal number, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${raw}`);
  return value;
}

/** `false`/`0`: no proxy; `true`: one; a number N: N trusted proxies in front. */
function trustedHops(env: Env, name: string): number {
  const raw = present(env, name);
  if (raw === undefined || raw === 'false') return 0;
  if (raw === 'true') return 1;
  return int(env, name, 0, 0, 32);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = present(env, name);
  if (raw === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  return raw;
}

/** JWT_SECRET, or a random one per start in embedded mode (several instances must share it). */
function jwtSecretOf(env: Env, databaseUrl: string | null): string {
  const jwtSecret = present(env, 'JWT_SECRET');
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 bytes');
  if (jwtSecret !== undefined) return jwtSecret;
  if (databaseUrl) throw new ConfigError('JWT_SECRET', 'is required (at least 32 bytes) when DATABASE_URL is set');
  return randomBytes(32).toString('hex');
}

/** HOST, loopback by default: the embedded default serves one machine. */
function hostOf(env: Env): string {
  return present(env, 'HOST') ?? '127.0.0.1';
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost: a bind address no other machine reaches. */
function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(h);
}

/**
 * docs/spec/design.md section 16: production names its services (the embedded database and the
 * in-process jobs serve one machine), and an exchange reachable from the network protects /metrics.
 */
function checkDeployment(env: Env, host: string, databaseUrl: string | null, redisUrl: string | null, metricsToken: string | null): void {
  checkProduction(env, databaseUrl, redisUrl);
  if (!isLoopback(host) && metricsToken === null) {
    throw new ConfigError('METRICS_TOKEN', `is required when HOST (${host}) is not a loopback address: /metrics would be open to the network`);
  }
  // A proxy in front means the network reaches the port, whatever HOST says (docs/spec/design.md section 20).
  if (trustedHops(env, 'TRUST_PROXY') > 0 && metricsToken === null) {
    throw new ConfigError('METRICS_TOKEN', 'is required when TRUST_PROXY is not false: a proxy in front means /metrics is reachable from the network');
  }
}

function checkProduction(env: Env, databaseUrl: string | null, redisUrl: string | null): void {
  if (present(env, 'NODE_ENV') === 'production') {
    if (!databaseUrl)
      throw new ConfigError('DATABASE_URL', 'is required when NODE_ENV=production (the embedded database serves one machine: a laptop, a demo, tests)');
    if (!redisUrl)
      throw new ConfigError('REDIS_URL', 'is required when NODE_ENV=production (the in-process job runner and broadcaster serve one instance only)');
  }
}

/** The rate and connection limits (docs/spec/design.md sections 0, 10 and 16). */
function abuseLimits(env: Env) {
  return {
    rfqRatePerSecond: int(env, 'RFQ_RATE_PER_SECOND', 50, 1, 1_000_000),
    rfqRateBurst: int(env, 'RFQ_RATE_BURST', 100, 1, 1_000_000),
    nonceRatePerMinute: int(env, 'NONCE_RATE_PER_MINUTE', 10, 1, 1_000_000),
    authRatePerMinute: int(env, 'AUTH_RATE_PER_MINUTE', 30, 1, 1_000_000),
    publicRatePerSecond: int(env, 'PUBLIC_RATE_PER_SECOND', 20, 1, 1_000_000),
    publicRateBurst: int(env, 'PUBLIC_RATE_BURST', 50, 1, 1_000_000),
    maxConnectionsPerIp: int(env, 'MAX_CONNECTIONS_PER_IP', 50, 1, 1_000_000),
    replayEventsPerSecond: int(env, 'REPLAY_EVENTS_PER_SECOND', 5000, 1, 100_000_000),
    queryRatePerSecond: int(env, 'QUERY_RATE_PER_SECOND', 50, 1, 1_000_000),
    queryRateBurst: int(env, 'QUERY_RATE_BURST', 100, 1, 1_000_000),
  };
}

export function loadConfig(env: Env = process.env): AppConfig {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const serviceName = present(env, 'SERVICE_NAME') ?? 'Legwork';
  if (!/^[\x20-\x7e]{1,64}$/.test(serviceName) || serviceName.trim() !== serviceName) {
    throw new ConfigError('SERVICE_NAME', 'must be 1 to 64 printable ASCII characters without surrounding spaces');
  }
  const jwtSecret = jwtSecretOf(env, databaseUrl);
  const adminToken = present(env, 'ADMIN_TOKEN') ?? null;
  if (adminToken !== null && adminToken.length < 32) throw new ConfigError('ADMIN_TOKEN', 'must be at least 32 characters');
  const logLevel = (present(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const redisPrefix = present(env, 'REDIS_PREFIX') ?? 'legwork';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(redisPrefix)) throw new ConfigError('REDIS_PREFIX', 'must be 1 to 64 of A-Z a-z 0-9 _ . : -');
  const signingKey = present(env, 'EXCHANGE_SIGNING_KEY');
  if (signingKey !== undefined && !/^[0-9a-fA-F]{64}$/.test(signingKey))
    throw new ConfigError('EXCHANGE_SIGNING_KEY', 'must be 64 hex characters (a 32-byte ed25519 seed)');
  // Several instances must sign with one key, and a key in one instance's disk is no one's: required.
  if (signingKey === undefined && databaseUrl) throw new ConfigError('EXCHANGE_SIGNING_KEY', 'is required (64 hex characters) when DATABASE_URL is set');
  const metricsToken = present(env, 'METRICS_TOKEN') ?? null;
  if (metricsToken !== null && metricsToken.length < 32) throw new ConfigError('METRICS_TOKEN', 'must be at least 32 characters');
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  checkDeployment(env, hostOf(env), databaseUrl, redisUrl, metricsToken);

  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: hostOf(env),
    serviceName,
    databaseUrl,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    dataDir: present(env, 'DATA_DIR') ?? './.data',
    redisUrl,
    redisPrefix,
    jwtSecret,
    sessionTtlSeconds: int(env, 'SESSION_TTL_SECONDS', 86400, 1, 366 * 86400),
    sessionMaxSeconds: int(env, 'SESSION_MAX_SECONDS', 604800, 1, 3660 * 86400),
    production: present(env, 'NODE_ENV') === 'production',
    adminToken,
    rfqEnabled: bool(env, 'RFQ_ENABLED', true),
    takerFeeBps: int(env, 'TAKER_FEE_BPS', 3, 0, 10000),
    tradeFeeCapBps: int(env, 'TRADE_FEE_CAP_BPS', 1250, 0, 10000),
    takerFeeToleranceBps: int(env, 'TAKER_FEE_TOLERANCE_BPS', 100, 0, 10000),
    marketDataMaxAgeSeconds: int(env, 'MARKET_DATA_MAX_AGE_SECONDS', 30, 1, 86400),
    rfqTtlSeconds: int(env, 'RFQ_TTL_SECONDS', 120, 1, 86400),
    maxOpenRfqs: int(env, 'MAX_OPEN_RFQS', 50, 1, 100000),
    ...abuseLimits(env),
    lockUpsideBps: int(env, 'LOCK_UPSIDE_BPS', 10000, 0, 1_000_000),
    trustProxy: trustedHops(env, 'TRUST_PROXY'),
    metricsToken,
    logLevel,
    exchangeSigningKey: signingKey === undefined ? null : Buffer.from(signingKey, 'hex'),
    sweepIntervalMs: int(env, 'SWEEP_INTERVAL_MS', 2000, 100, 600_000),
    wsPingIntervalMs: int(env, 'WS_PING_INTERVAL_MS', 20000, 50, 600_000),
    rfqHistoryDays: decimal(env, 'RFQ_HISTORY_DAYS', 30, 1 / 86400, 36_500),
    competitionMaxMakers: int(env, 'COMPETITION_MAX_MAKERS', 20, 1, 1000),
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
