/** JSON Schema pieces the HTTP route declarations share (every object closed, no $ref: route-declaration.ts). */

/** An object whose every property is required and nothing else allowed. */
export const closed = <const P extends Record<string, object>>(properties: P) =>
  ({ type: 'object', properties, required: Object.keys(properties) as Array<keyof P & string>, additionalProperties: false }) as const;

/** An HTTP decimal: 8 decimal places, as every HTTP amount is written (docs/spec/design.md 6). */
export const httpDecimal = <const D extends string>(description: D) =>
  ({
    type: 'string',
    description: `${description}; decimal string with 8 decimal places`,
    example: '1250.00000000',
    pattern: '^-?[0-9]+\\.[0-9]{8}$',
  }) as const;

/** `{account_id}`: a positive integer in canonical decimal text ("7", not "07", "7.0" or "0x7"). */
export const ACCOUNT_ID_PARAM = {
  schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Account id: a positive integer in canonical decimal text' },
  pattern: /^[1-9][0-9]{0,15}$/,
  message: 'account_id must be a positive integer',
} as const;

/** `{rfq_id}`: an RFQ id, 32 lowercase hex characters. */
export const RFQ_ID_PARAM = {
  schema: { type: 'string', pattern: '^[0-9a-f]{32}$', description: 'RFQ id: 32 lowercase hex characters' },
  pattern: /^[0-9a-f]{32}$/,
  message: 'rfq_id must be 32 lowercase hex characters',
} as const;
