/**
 * Micro-benchmark of the JSON-RPC params validator (gateway/schema/compile.ts): nanoseconds per
 * call of the compiled validators on the params of the F2 round trips and of the busiest writes,
 * valid and invalid. A script, not a timed test:
 *   npx tsc -p bench/tsconfig.json && node bench/.build/bench/experiments/params-validator.js
 */
import { METHODS } from '@legwork/protocol';
import { compileParams } from '../../src/modules/gateway/schema/compile';

const ID = '01935f3a8b2c7d4e8f00112233445566';
export const SAMPLES: Array<[string, () => (params: Record<string, unknown>) => unknown, Record<string, unknown>]> = [
  ['rfq.get', () => compileParams(METHODS['rfq.get'].params, 'rfq'), { rfq_id: ID }],
  ['rfq.list', () => compileParams(METHODS['rfq.list'].params, 'rfq'), { states: ['pending', 'quoted'], limit: 50 }],
  [
    'rfq.create (4 legs)',
    () => compileParams(METHODS['rfq.create'].params, 'rfq'),
    {
      client_ref: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      legs: ['150-C', '140-P', '160-C', '130-P'].map((s, i) => ({ instrument: `SOL-27DEC26-${s}`, quantity: i % 2 ? '-2' : '1.5' })),
    },
  ],
  [
    'rfq.maker.respond',
    () => compileParams(METHODS['rfq.maker.respond'].params, 'rfq'),
    { rfq_id: ID, quote_nonce: '1000', bid: '12.5', ask: '13.25', issued_at: 1795000000, expires_at: 1795000060, maker_signature: 'A'.repeat(86) + '==' },
  ],
  [
    'rfq.accept',
    () => compileParams(METHODS['rfq.accept'].params, 'rfq'),
    { quote_id: 'ab'.repeat(32), side: 'buy', expires_at: 1795000000, taker_signature: 'A'.repeat(86) + '==' },
  ],
  ['public/get_instruments', () => compileParams(METHODS['public/get_instruments'].params, 'public'), { asset: 'SOL' }],
  [
    'rfq.create (bad precision)',
    () => compileParams(METHODS['rfq.create'].params, 'rfq'),
    { client_ref: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', legs: [{ instrument: 'X', quantity: '1.0000001' }] },
  ],
];

/** Median ns per call over `rounds` rounds of `calls` calls. */
export function measure(parse: (params: Record<string, unknown>) => unknown, params: Record<string, unknown>, calls = 200_000, rounds = 7): number {
  const times: number[] = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) {
      try {
        sink += parse(params) ? 1 : 0;
      } catch {
        sink += 2;
      }
    }
    times.push(Number(process.hrtime.bigint() - started) / calls);
  }
  if (sink < 0) console.log(sink);
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)];
}

if (require.main === module) {
  for (const [name, make, params] of SAMPLES) console.log(`${name.padEnd(28)} ${measure(make(), params).toFixed(0).padStart(6)} ns/call`);
}
