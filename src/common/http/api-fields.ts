/**
 * OpenAPI descriptions of the HTTP forms every route shares (docs/spec/interface.md 2.2): spread into an
 * `@ApiProperty` of a DTO, or into a JSON schema of a response body.
 */

/** A money, price or quantity field: a decimal string with exactly 8 decimal places. */
export const HTTP_DECIMAL = (description: string) => ({
  description: `${description}; decimal string with 8 decimal places`,
  example: '1250.00000000',
  pattern: '^-?[0-9]+\\.[0-9]{8}$',
});

/** A time field: ISO 8601, UTC. */
export const ISO_TIME = { format: 'date-time', description: 'ISO 8601 UTC' } as const;
