/**
 * Frames for fuzzing the JSON-RPC gateway: a valid request of every method (from the interface's
 * params), then mutated: wrong types, depths, sizes, unicode, number forms, duplicate keys,
 * envelope faults, broken text and batches. Deterministic for a seed (FUZZ_SEED).
 */

export type Rng = () => number;

/**
 * mulberry32: small, fast, seedable. The same as support/prng.ts, kept here because
 * fuzz-worker.js compiles this file alone and it can import nothing of ours.
 */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: Rng, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const int = (r: Rng, n: number) => Math.floor(r() * n);

/** What the seeds are built from: real symbols, ids and wallets of the fuzzed exchange. */
export interface FuzzWorld {
  wallets: string[];
  symbols: string[];
  rfqIds: string[];
  quoteIds: string[];
  expiry: number;
  token: string;
}

type Params = Record<string, unknown>;

/** A valid-looking params object of each method of docs/spec/interface.md 4.2. */
export function seeds(w: FuzzWorld, r: Rng): Record<string, () => Params> {
  const now = Math.floor(Date.now() / 1000);
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(r, 16)]).join('');
  const sig64 = () => Buffer.from(Array.from({ length: 64 }, () => int(r, 256))).toString('base64');
  return {
    'public/get_nonce': () => ({ wallet: pick(r, w.wallets) }),
    'public/auth': () => {
      const wallet = pick(r, w.wallets);
      return { wallet, message: `Sign in to Legwork\n\nWallet: ${wallet}\nNonce: ${hex(32)}`, signature: '1'.repeat(87) };
    },
    'public/session_resume': () => ({ session_token: r() < 0.5 ? w.token : `${w.token.slice(0, -3)}abc` }),
    'public/get_market_config': () => ({}),
    'public/get_instruments': () => ({ asset: 'SOL', expiry: w.expiry, include_settled: r() < 0.5 }),
    'rfq.create': () => ({ client_ref: `fz-${hex(8)}`, legs: [{ instrument: pick(r, w.symbols), quantity: pick(r, ['1', '0.5', '-2', '0.000001']) }] }),
    'rfq.accept': () => ({ quote_id: pick(r, w.quoteIds), side: pick(r, ['buy', 'sell']), expires_at: now + 30, taker_signature: sig64() }),
    'rfq.get': () => ({ rfq_id: pick(r, w.rfqIds) }),
    'rfq.list': () => ({ states: ['pending', 'filled'], limit: 10, ...(r() < 0.3 ? { cursor: pick(r, w.rfqIds) } : {}) }),
    'rfq.subscribe': () => ({}),
    'rfq.maker.poll': () => ({ limit: 5 }),
    'rfq.maker.respond': () => ({
      rfq_id: pick(r, w.rfqIds),
      quote_nonce: String(1 + int(r, 1e9)),
      bid: '1.5',
      ask: '2.25',
      issued_at: now,
      expires_at: now + 60,
      maker_signature: sig64(),
    }),
    'rfq.maker.decline': () => ({ rfq_id: pick(r, w.rfqIds), reason: pick(r, ['size_limit', 'near_expiry', 'stale_data']) }),
    'rfq.maker.subscribe': () => ({}),
  };
}

/** Values that a field should not hold (or holds at its edges). */
function oddValue(r: Rng, depth = 0): unknown {
  switch (int(r, 22)) {
    case 0:
      return null;
    case 1:
      return true;
    case 2:
      return -0;
    case 3:
      return pick(r, [0, 1, -1, 1.5, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e308, 5e-324, Number.MAX_SAFE_INTEGER]);
    case 4:
      return pick(r, ['', ' ', '0', '-0', '1e3', '1.0000001', '00.1', '.5', '5.', '+1', '0x10', 'NaN', 'Infinity', '１２３', '18446744073709551616']);
    case 5:
      return 'x'.repeat(pick(r, [33, 100, 1000, 20_000]));
    case 6:
      return pick(r, ['\u0000', '\ud800', '\udfff', '😀'.repeat(10), '\u202e', 'Ω≈ç√', '\n\r\t', '"\\', 'é'.normalize('NFD')]);
    case 7:
      return [];
    case 8:
      return {};
    case 9:
      return depth < 3 ? [oddValue(r, depth + 1), oddValue(r, depth + 1)] : [];
    case 10:
      return depth < 3 ? { [pick(r, ['a', '__proto__', 'constructor', 'toString', ''])]: oddValue(r, depth + 1) } : {};
    case 11:
      return nest(int(r, 40) + 1);
    case 12:
      return Array.from({ length: pick(r, [14, 100, 2000]) }, () => ({ instrument: 'X', quantity: '1' }));
    case 13:
      return pick(r, ['buy', 'sell', 'BUY', 'pending', 'filled', 'bogus']);
    case 14:
      return '0'.repeat(32);
    case 15:
      return 'g'.repeat(32);
    case 16:
      return 'A'.repeat(88);
    case 17:
      return pick(r, ['taker', 'admin', 'quoter']);
    case 18:
      return int(r, 2 ** 31) - 2 ** 30;
    case 19:
      return Math.floor(Date.now() / 1000) + pick(r, [-10, 0, 5, 6, 3600, 3601, 1e10]);
    case 20:
      return pick(r, ['SOL-01JAN30-150-C', 'SOL-31FEB26-150-C', 'sol-01JAN30-150-C', 'SOL-01JAN30-0-C']);
    default:
      return String.fromCharCode(...Array.from({ length: int(r, 12) }, () => int(r, 0x10000)));
  }
}

/** Deeper than this, nesting is written into the frame's text (JSON.stringify would overflow the stack). */
const TEXT_NEST = 100;

function nest(depth: number): unknown {
  if (depth > TEXT_NEST) return `__DEEP_${depth}__`;
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** One mutation of a params object (in place on a copy). */
function mutateParams(r: Rng, params: Params): unknown {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return params;
  const keys = Object.keys(params);
  switch (int(r, 9)) {
    case 0: // a field of another type or form
    case 1:
      if (keys.length) params[pick(r, keys)] = oddValue(r);
      return params;
    case 2: // a field missing
      if (keys.length) delete params[pick(r, keys)];
      return params;
    case 3: // a field that is not of the method
      params[pick(r, ['extra', 'wallet', 'rfq_id', 'limit', '__proto__', 'constructor'])] = oddValue(r);
      return params;
    case 4: {
      // inside the legs or other nested values
      const legs = params.legs as Array<Record<string, unknown>> | undefined;
      const first = Array.isArray(legs) ? legs[0] : undefined;
      if (typeof first === 'object' && first !== null && !Array.isArray(first)) first[pick(r, ['instrument', 'quantity', 'extra'])] = oddValue(r);
      else if (keys.length) params[pick(r, keys)] = [oddValue(r)];
      return params;
    }
    case 5: // params that are not an object
      return pick(r, [null, [], [params], 'params', 1, true]);
    case 6: // deep
      return { ...params, [keys.length ? pick(r, keys) : 'x']: nest(pick(r, [15, 16, 17, 200, 5000])) };
    case 7: // many fields
      for (let i = 0; i < pick(r, [20, 200]); i++) params[`k${i}`] = i;
      return params;
    default:
      return params; // unchanged: the valid call reaches the services
  }
}

/** Breaks the envelope itself (id, version, method, params), in place. */
function breakEnvelope(r: Rng, envelope: Record<string, unknown>): void {
  switch (int(r, 7)) {
    case 0:
      delete envelope.id;
      break;
    case 1:
      envelope.id = pick(r, [1.5, {}, [], true, -0, 2 ** 60, '😀', null]);
      break;
    case 2:
      envelope.jsonrpc = pick(r, ['1.0', 2, null]);
      break;
    case 3:
      envelope.method = pick(r, ['', 'rfq.', 'RFQ.GET', 'rfq.get ', 'private/x', '__proto__', 'constructor', 'x'.repeat(5000)]);
      break;
    case 4:
      delete envelope.params;
      break;
    case 5:
      envelope.extra = oddValue(r);
      break;
    default:
      delete envelope.method;
  }
}

/** Text-level forms JSON.stringify never writes. */
function breakText(r: Rng, text: string): string {
  switch (int(r, 8)) {
    case 0: // a duplicate key: the later one counts for JSON.parse
      return text.replace(/^(\s*\[?\s*)\{/, `$1{"params":{"x":1},"id":"dup",`);
    case 1: // number forms
      return text.replace(/"(\d+(\.\d+)?)"/, (_m, n) => pick(r, [n, `${n}e0`, `${n}.0`, `-${n}`, `0${n}`, `${n}E+2`, '1e400', '-0.0']));
    case 2: // truncated
      return text.slice(0, int(r, text.length));
    case 3: {
      // a byte changed
      const at = int(r, text.length);
      return text.slice(0, at) + String.fromCharCode(int(r, 128)) + text.slice(at + 1);
    }
    case 4: // whitespace and a BOM
      return pick(r, ['\ufeff', ' \n\t', '']) + text + pick(r, [' ', '\n', '']);
    case 5: // unicode escapes
      return text.replace(/"([a-z_]+)":/, (_m, k: string) => `"${[...k].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}":`);
    case 6:
      return pick(r, ['', 'null', '1', '"x"', '[]', '{}', '[[]]', '{"jsonrpc":"2.0"}', 'true']);
    default: // a raw lone surrogate in the text
      return text.replace('"2.0"', '"2.0\ud800"');
  }
}

/** One frame's text: a request of a random method, mutated, maybe in a batch, maybe broken as text. */
export function frame(r: Rng, seed: Record<string, () => Params>, nextId: () => number): string {
  const methods = Object.keys(seed);
  const request = (): Record<string, unknown> => {
    const method = pick(r, methods);
    const envelope: Record<string, unknown> = { jsonrpc: '2.0', id: nextId(), method, params: mutateParams(r, seed[method]()) };
    if (r() < 0.5) envelope.params = mutateParams(r, envelope.params as Params);
    if (r() < 0.1) breakEnvelope(r, envelope);
    return envelope;
  };
  let text: string;
  if (r() < 0.08) {
    const n = pick(r, [1, 2, 5, 20, 21, 0]);
    text = JSON.stringify(Array.from({ length: n }, () => (r() < 0.1 ? oddValue(r) : request())));
  } else {
    text = JSON.stringify(request());
  }
  text = text.replace(/"__DEEP_(\d+)__"/g, (_m, n: string) => '['.repeat(Number(n)) + ']'.repeat(Number(n)));
  return r() < 0.15 ? breakText(r, text) : text;
}
