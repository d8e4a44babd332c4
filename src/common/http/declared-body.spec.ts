import { compileBody } from './declared-body';

/** A body as POST /v1/auth/session declares it. */
const SIGN_IN = {
  type: 'object',
  properties: { wallet: { type: 'string' }, signature: { type: 'string' }, message: { type: 'string' } },
  required: ['wallet', 'signature', 'message'],
  additionalProperties: false,
};

/** The messages are the ones the class-validator DTOs gave (the routes' e2e tests and clients read them). */
describe('a declared body', () => {
  const signIn = compileBody(SIGN_IN, 'sign-in');
  const refused = (body: unknown) => {
    try {
      signIn(body);
    } catch (error) {
      return (error as { code: string; message: string }).message;
    }
    return undefined;
  };

  it('accepts the declared fields', () => {
    expect(signIn({ wallet: 'w', signature: 's', message: 'm' })).toEqual({ wallet: 'w', signature: 's', message: 'm' });
  });

  it.each([
    [undefined, 'wallet must be a string'],
    [[], 'wallet must be a string'],
    ['text', 'wallet must be a string'],
    [{ wallet: 5 }, 'wallet must be a string'],
    [{ wallet: null }, 'wallet must be a string'],
    [{ wallet: 'w' }, 'signature must be a string'],
    [{ wallet: 'w', signature: 1, message: 'm' }, 'signature must be a string'],
    // Undeclared fields first, the first of the body's.
    [{ message: 1, signature: 2, wallet: 3, zz: 1 }, 'zz: property zz should not exist'],
  ])('refuses %j: %s', (body, message) => {
    expect(refused(body)).toBe(message);
  });

  it('refuses a body nested deeper than 16 levels before walking it', () => {
    let deep: unknown = 'w';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(refused({ wallet: deep })).toBe('the body nests deeper than 16 levels');
  });

  it('nested objects, integers, booleans and enums, with the field path', () => {
    const check = compileBody(
      {
        type: 'object',
        properties: {
          limits: {
            type: 'object',
            properties: { max: { type: 'integer' }, on: { type: 'boolean' }, side: { type: 'string', enum: ['buy', 'sell'] } },
            required: ['max'],
            additionalProperties: false,
          },
        },
        required: ['limits'],
        additionalProperties: false,
      },
      'test',
    );
    const problem = (body: unknown) => {
      try {
        check(body);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problem({ limits: { max: 1.5 } })).toBe('limits.max must be an integer number');
    expect(problem({ limits: { max: 1, on: 'yes' } })).toBe('limits.on must be a boolean value');
    expect(problem({ limits: { max: 1, side: 'hold' } })).toBe('limits.side must be one of the following values: buy, sell');
    expect(problem({ limits: { max: 1, x: 1 } })).toBe('limits.x: property x should not exist');
    expect(problem({ limits: { max: 1, on: null } })).toBeUndefined();
  });

  it('refuses, when the route is registered, a schema it would not check whole', () => {
    expect(() => compileBody({ type: 'object', properties: { a: { type: 'integer', minimum: 1 } }, additionalProperties: false }, 'r')).toThrow(/minimum/);
    expect(() => compileBody({ type: 'object', properties: { a: { type: 'array' } }, additionalProperties: false }, 'r')).toThrow(/items/);
    expect(() => compileBody({ type: 'object', properties: {} }, 'r')).toThrow(/closed/);
  });
});

describe("a declared body with the DTO's own messages", () => {
  const transfer = compileBody(
    {
      type: 'object',
      properties: { amount: { type: 'string' }, reference: { type: 'string', minLength: 1, maxLength: 128 } },
      required: ['amount', 'reference'],
      additionalProperties: false,
    },
    'admin.deposit',
    { amount: 'amount must be a decimal string', reference: 'reference must be a string of 1 to 128 characters' },
  );
  const problem = (body: unknown) => {
    try {
      transfer(body);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it.each([
    [{ reference: 'r' }, 'amount must be a decimal string'],
    [{ amount: 1, reference: 'r' }, 'amount must be a decimal string'],
    [{ amount: '1' }, 'reference must be a string of 1 to 128 characters'],
    [{ amount: '1', reference: '' }, 'reference must be a string of 1 to 128 characters'],
    [{ amount: '1', reference: 'x'.repeat(129) }, 'reference must be a string of 1 to 128 characters'],
    [{ amount: '1', reference: 'r', memo: 'x' }, 'memo: property memo should not exist'],
    [{ amount: '1', reference: 'x'.repeat(128) }, undefined],
  ])('%j: %s', (body, message) => {
    expect(problem(body)).toBe(message);
  });
});

/** Expected messages: what the class-validator DTOs these routes replaced answered for the same body (run through the validation pipe). */
const problemOf = (check: (body: unknown) => unknown) => (body: unknown) => {
  try {
    check(body);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

describe('a declared body with arrays, in class-validator order', () => {
  const ROLES = ['taker', 'quoter', 'admin'];
  const roles = (required: string[]) =>
    problemOf(
      compileBody(
        {
          type: 'object',
          properties: { wallet: { type: 'string' }, roles: { type: 'array', items: { type: 'string', enum: ROLES } } },
          required,
          additionalProperties: false,
        },
        'admin.create-account',
        { 'roles[]': 'roles must be an array of taker, quoter, admin' },
      ),
    );
  const create = roles(['wallet']);
  const set = roles(['wallet', 'roles']);
  const strikes = problemOf(
    compileBody({ type: 'object', properties: { strikes: { type: 'array', maxItems: 3, items: { type: 'string' } } }, additionalProperties: false }, 'strikes'),
  );

  it.each([
    [{ wallet: 'x', roles: ['taker', 'quoter'] }, undefined],
    [{ wallet: 'x', roles: [] }, undefined],
    [{ wallet: 'x', roles: null }, undefined],
    [{ wallet: 'x', roles: 'taker' }, 'roles must be an array'],
    [{ wallet: 'x', roles: 5 }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 'x', roles: ['trader'] }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 'x', roles: [5] }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 'x', roles: [null] }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 'x', roles: [['taker']] }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 'x', roles: { a: 1 } }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 5, roles: 5 }, 'wallet must be a string'],
    [{ roles: [], x: 1 }, 'x: property x should not exist'],
  ])('an optional array of an enum, its own item message: %j', (body, message) => {
    expect(create(body)).toBe(message);
  });

  it.each([
    [{ wallet: 'x' }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 'x', roles: null }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 'x', roles: {} }, 'roles must be an array of taker, quoter, admin'],
    [{ wallet: 'x', roles: 'taker' }, 'roles must be an array'],
  ])('a required one: %j', (body, message) => {
    expect(set(body)).toBe(message);
  });

  it.each([
    [{ strikes: ['1', '2'] }, undefined],
    [{ strikes: [] }, undefined],
    [{ strikes: null }, undefined],
    [{ strikes: ['1', '2', '3', '4'] }, 'strikes must contain no more than 3 elements'],
    // `each` passes a string that is not an array; maxItems refuses it before the type.
    [{ strikes: '1' }, 'strikes must contain no more than 3 elements'],
    [{ strikes: [1] }, 'strikes: each value in strikes must be a string'],
    [{ strikes: ['1', 2] }, 'strikes: each value in strikes must be a string'],
    [{ strikes: 5 }, 'strikes: each value in strikes must be a string'],
    [{ strikes: { a: '1' } }, 'strikes: each value in strikes must be a string'],
  ])('an array of strings with maxItems: %j', (body, message) => {
    expect(strikes(body)).toBe(message);
  });
});

describe('a declared body with patterns and fields the handler parses', () => {
  const ASSET = '^[A-Z][A-Z0-9]{1,7}$';
  const marketData = problemOf(
    compileBody(
      {
        type: 'object',
        properties: {
          asset: { type: 'string', pattern: ASSET },
          index_price: { oneOf: [{ type: 'number' }, { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' }] },
          iv: { oneOf: [{ type: 'number' }, { type: 'string' }] },
          ivs: { type: 'object', additionalProperties: { oneOf: [{ type: 'number' }, { type: 'string' }] } },
          code: { type: 'string', pattern: '^[a-z]+$' },
        },
        required: ['asset', 'index_price'],
        additionalProperties: false,
      },
      'admin.market-data',
      { asset: `asset must match ${ASSET}` },
      ['index_price', 'iv', 'ivs'],
    ),
  );

  it.each([
    [{ asset: 'SOL', index_price: '1', iv: 'high', ivs: { X: { y: 1 } } }, undefined],
    [{ asset: 'SOL', index_price: 0, iv: null, ivs: null }, undefined],
    [{}, `asset must match ${ASSET}`],
    [{ asset: 5 }, `asset must match ${ASSET}`],
    [{ asset: 'sol', index_price: '1' }, `asset must match ${ASSET}`],
    [{ asset: 'SOL' }, 'index_price should not be null or undefined'],
    [{ asset: 'SOL', index_price: null }, 'index_price should not be null or undefined'],
    [{ asset: 'SOL', index_price: '1', ivs: ['0.8'] }, 'ivs must be an object'],
    [{ asset: 'SOL', index_price: '1', ivs: 'x' }, 'ivs must be an object'],
    [{ asset: 'SOL', index_price: '1', spot: '1' }, 'spot: property spot should not exist'],
    [{ asset: 'SOL', index_price: '1', code: 'A' }, 'code must match ^[a-z]+$ regular expression'],
  ])('%j: %s', (body, message) => {
    expect(marketData(body)).toBe(message);
  });
});
