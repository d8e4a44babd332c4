import { RfqError } from '../../common/errors/app-error';
import { compileParams } from '../gateway/schema/compile';
import { METHODS as RFQ_METHODS } from '@legwork/protocol';

// The validators the gateway compiles from the declarations (the hand parsers they replaced were tested here).
const parseCreateParams = compileParams(RFQ_METHODS['rfq.create'].params, 'rfq');
const parseDeclineParams = compileParams(RFQ_METHODS['rfq.maker.decline'].params, 'rfq');
const parseGetParams = compileParams(RFQ_METHODS['rfq.get'].params, 'rfq');
const parseListParams = compileParams(RFQ_METHODS['rfq.list'].params, 'rfq');
const parsePollParams = compileParams(RFQ_METHODS['rfq.maker.poll'].params, 'rfq');
const parseRespondParams = compileParams(RFQ_METHODS['rfq.maker.respond'].params, 'rfq');
const parseSubscribeParams = compileParams(RFQ_METHODS['rfq.subscribe'].params, 'rfq');

const REF = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const ID = '01935f3a8b2c7d4e8f00112233445566';
const leg = (instrument: unknown, quantity: unknown) => ({ instrument, quantity });

/** The RfqError code and message of a parse, or 'ok'. */
function outcome(parse: () => unknown): { code: string; message?: string; retryable?: boolean } {
  try {
    parse();
    return { code: 'ok' };
  } catch (error) {
    if (!(error instanceof RfqError)) throw error;
    return { code: error.code, message: error.message, retryable: error.retryable };
  }
}

describe('rfq.create params', () => {
  const create = (params: Record<string, unknown>) => outcome(() => parseCreateParams(params));

  it('parses canonical legs in the taker order', () => {
    const parsed = parseCreateParams({ client_ref: REF, legs: [leg('SOL-27DEC26-150-C', '1.50'), leg('SOL-27DEC26-140-P', '-2')] });
    expect(parsed).toEqual({
      clientRef: REF,
      legs: [
        { instrument: 'SOL-27DEC26-150-C', quantity: 1_500_000n },
        { instrument: 'SOL-27DEC26-140-P', quantity: -2_000_000n },
      ],
    });
  });

  it.each([
    ['an unknown param', { client_ref: REF, legs: [leg('X', '1')], extra: 1 }, 'extra'],
    ['no client_ref', { legs: [leg('X', '1')] }, 'client_ref'],
    ['an upper-case client_ref', { client_ref: REF.toUpperCase(), legs: [leg('X', '1')] }, 'client_ref'],
    ['a client_ref that is not a UUID', { client_ref: 'abc', legs: [leg('X', '1')] }, 'client_ref'],
    ['a numeric client_ref', { client_ref: 7, legs: [leg('X', '1')] }, 'client_ref'],
    ['no legs', { client_ref: REF }, 'legs'],
    ['legs that are an object', { client_ref: REF, legs: { 0: leg('X', '1') } }, 'legs'],
    ['a leg that is not an object', { client_ref: REF, legs: ['X'] }, 'legs[0]'],
    ['a leg that is an array', { client_ref: REF, legs: [leg('X', '1'), ['X', '1']] }, 'legs[1]'],
    ['a leg with an extra field', { client_ref: REF, legs: [{ instrument: 'X', quantity: '1', side: 'buy' }] }, 'legs[0]'],
    ['a leg without instrument', { client_ref: REF, legs: [{ quantity: '1' }] }, 'legs[0].instrument'],
    ['a numeric instrument', { client_ref: REF, legs: [leg(5, '1')] }, 'legs[0].instrument'],
    ['a leg without quantity', { client_ref: REF, legs: [{ instrument: 'X' }] }, 'legs[0].quantity'],
    ['a null quantity', { client_ref: REF, legs: [leg('X', null)] }, 'legs[0].quantity'],
    ['a boolean quantity', { client_ref: REF, legs: [leg('X', true)] }, 'legs[0].quantity'],
    ['a quantity beyond i64', { client_ref: REF, legs: [leg('X', '9223372036854.775808')] }, 'legs[0].quantity'],
  ])('%s is RFQ_VALUE_OUT_OF_RANGE naming the field', (_name, params, field) => {
    const result = create(params);
    expect(result.code).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(result.message).toContain(field);
    expect(result.retryable).toBe(false);
  });

  it.each([
    ['seven fractional digits', '1.0000001'],
    ['seven digits with a trailing zero', '1.1000000'],
    ['a JSON number', 1],
    ['an exponent', '1e3'],
    ['negative zero', '-0'],
    ['negative zero with a fraction', '-0.0'],
    ['a plus sign', '+1'],
    ['a bare fraction', '.5'],
    ['a trailing point', '1.'],
    ['a leading zero', '01'],
    ['whitespace', ' 1'],
    ['an empty string', ''],
  ])('%s is RFQ_PRECISION_UNSUPPORTED', (_name, quantity) => {
    const result = create({ client_ref: REF, legs: [leg('X', quantity)] });
    expect(result.code).toBe('RFQ_PRECISION_UNSUPPORTED');
    expect(result.message).toContain('legs[0].quantity');
  });

  it('checks precision before the zero rule, across all legs', () => {
    expect(create({ client_ref: REF, legs: [leg('X', '0'), leg('Y', '-0')] }).code).toBe('RFQ_PRECISION_UNSUPPORTED');
    expect(create({ client_ref: REF, legs: [leg('X', '0'), leg('Y', '1')] })).toMatchObject({
      code: 'RFQ_SIZE_INVALID',
      message: expect.stringContaining('legs[0]'),
    });
    expect(create({ client_ref: REF, legs: [leg('X', '1'), leg('Y', '0.000')] })).toMatchObject({
      code: 'RFQ_SIZE_INVALID',
      message: expect.stringContaining('legs[1]'),
    });
  });

  it('takes 1 to 13 legs, else RFQ_SIZE_INVALID', () => {
    const legs = (n: number) => Array.from({ length: n }, (_, i) => leg(`S${i}`, '1'));
    expect(create({ client_ref: REF, legs: [] }).code).toBe('RFQ_SIZE_INVALID');
    expect(create({ client_ref: REF, legs: legs(14) }).code).toBe('RFQ_SIZE_INVALID');
    expect(create({ client_ref: REF, legs: legs(1) }).code).toBe('ok');
    expect(create({ client_ref: REF, legs: legs(13) }).code).toBe('ok');
  });

  it('leaves unknown instruments to the instrument check', () => {
    expect(create({ client_ref: REF, legs: [leg('', '1')] }).code).toBe('ok');
  });
});

describe('rfq.maker.respond params', () => {
  const good = { rfq_id: ID, quote_nonce: '1000', bid: '12.5', ask: '13.25', issued_at: 1795000000, expires_at: 1795000060, maker_signature: 'sig' };
  const respond = (changes: Record<string, unknown>) => {
    const params: Record<string, unknown> = { ...good, ...changes };
    for (const [k, v] of Object.entries(changes)) if (v === undefined) delete params[k];
    return outcome(() => parseRespondParams(params));
  };

  it('parses a quote', () => {
    expect(parseRespondParams(good)).toEqual({
      rfqId: ID,
      quoteNonce: 1000n,
      bid: 12_500_000n,
      ask: 13_250_000n,
      issuedAt: 1795000000,
      expiresAt: 1795000060,
      makerSignature: 'sig',
    });
  });

  it('takes quote_nonce up to u64 max and negative or zero prices', () => {
    expect(parseRespondParams({ ...good, quote_nonce: '18446744073709551615', bid: '-1', ask: '0' })).toMatchObject({
      quoteNonce: 18446744073709551615n,
      bid: -1_000_000n,
      ask: 0n,
    });
  });

  it.each([
    ['an unknown param', { side: 'buy' }, 'side'],
    ['no rfq_id', { rfq_id: undefined }, 'rfq_id'],
    ['an upper-case rfq_id', { rfq_id: ID.toUpperCase() }, 'rfq_id'],
    ['a short rfq_id', { rfq_id: ID.slice(1) }, 'rfq_id'],
    ['quote_nonce 0', { quote_nonce: '0' }, 'quote_nonce'],
    ['quote_nonce with a leading zero', { quote_nonce: '01' }, 'quote_nonce'],
    ['a numeric quote_nonce', { quote_nonce: 5 }, 'quote_nonce'],
    ['a negative quote_nonce', { quote_nonce: '-5' }, 'quote_nonce'],
    ['quote_nonce above u64', { quote_nonce: '18446744073709551616' }, 'quote_nonce'],
    ['a very long quote_nonce', { quote_nonce: '9'.repeat(400) }, 'quote_nonce'],
    ['no bid', { bid: undefined }, 'bid'],
    ['a null ask', { ask: null }, 'ask'],
    ['a fractional issued_at', { issued_at: 1795000000.5 }, 'issued_at'],
    ['a string expires_at', { expires_at: '1795000060' }, 'expires_at'],
    ['an unsafe expires_at', { expires_at: 2 ** 60 }, 'expires_at'],
    ['no maker_signature', { maker_signature: undefined }, 'maker_signature'],
    ['a numeric maker_signature', { maker_signature: 1 }, 'maker_signature'],
  ])('%s is RFQ_VALUE_OUT_OF_RANGE naming the field', (_name, changes, field) => {
    const result = respond(changes);
    expect(result.code).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(result.message).toContain(field);
  });

  it.each([
    ['bid', { bid: '12.5000001' }],
    ['ask', { ask: 13.25 }],
    ['bid', { bid: '-0' }],
  ])('a non-canonical %s is RFQ_PRECISION_UNSUPPORTED', (field, changes) => {
    expect(respond(changes)).toMatchObject({ code: 'RFQ_PRECISION_UNSUPPORTED', message: expect.stringContaining(field) });
  });

  it('leaves a bad signature text to the signature check', () => {
    expect(respond({ maker_signature: 'not base64' }).code).toBe('ok');
  });
});

describe('rfq.maker.decline params', () => {
  it('takes a reason of the enum', () => {
    expect(parseDeclineParams({ rfq_id: ID, reason: 'size_limit' })).toEqual({ rfqId: ID, reason: 'size_limit' });
  });
  it.each([
    [{ rfq_id: ID }, 'reason'],
    [{ rfq_id: ID, reason: 'too_big' }, 'reason'],
    [{ rfq_id: ID, reason: 'size_limit', note: 'x' }, 'note'],
    [{ reason: 'size_limit' }, 'rfq_id'],
  ])('%j is RFQ_VALUE_OUT_OF_RANGE', (params, field) => {
    expect(outcome(() => parseDeclineParams(params))).toMatchObject({ code: 'RFQ_VALUE_OUT_OF_RANGE', message: expect.stringContaining(field) });
  });
});

describe('rfq.get, rfq.list, rfq.maker.poll and subscribe params', () => {
  it('rfq.get takes one rfq_id', () => {
    expect(parseGetParams({ rfq_id: ID })).toEqual({ rfqId: ID });
    expect(outcome(() => parseGetParams({})).code).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(outcome(() => parseGetParams({ rfq_id: 'x' })).code).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(outcome(() => parseGetParams({ rfq_id: ID, x: 1 })).code).toBe('RFQ_VALUE_OUT_OF_RANGE');
  });

  it('rfq.list defaults to every state, no cursor, 100 items', () => {
    expect(parseListParams({})).toEqual({ states: null, cursor: null, limit: 100 });
    expect(parseListParams({ states: ['pending', 'quoted'], cursor: ID, limit: 1 })).toEqual({ states: ['pending', 'quoted'], cursor: ID, limit: 1 });
    expect(parseListParams({ states: [] })).toEqual({ states: [], cursor: null, limit: 100 });
  });

  it.each([
    [{ states: 'pending' }, 'states'],
    [{ states: ['pending', 'pending'] }, 'states'],
    [{ states: ['open'] }, 'states[0]'],
    [{ cursor: 'x' }, 'cursor'],
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ limit: '10' }, 'limit'],
    [{ after: ID }, 'after'],
  ])('rfq.list %j is RFQ_VALUE_OUT_OF_RANGE', (params, field) => {
    expect(outcome(() => parseListParams(params))).toMatchObject({ code: 'RFQ_VALUE_OUT_OF_RANGE', message: expect.stringContaining(field) });
  });

  it('rfq.maker.poll takes cursor and limit only', () => {
    expect(parsePollParams({})).toEqual({ cursor: null, limit: 100 });
    expect(parsePollParams({ cursor: ID, limit: 100 })).toEqual({ cursor: ID, limit: 100 });
    expect(outcome(() => parsePollParams({ states: ['pending'] })).code).toBe('RFQ_VALUE_OUT_OF_RANGE');
    expect(outcome(() => parsePollParams({ limit: -1 })).code).toBe('RFQ_VALUE_OUT_OF_RANGE');
  });

  it('subscribe takes an empty object', () => {
    expect(outcome(() => parseSubscribeParams({})).code).toBe('ok');
    expect(outcome(() => parseSubscribeParams({ channel: 'rfq' }))).toMatchObject({
      code: 'RFQ_VALUE_OUT_OF_RANGE',
      message: expect.stringContaining('channel'),
    });
  });
});
