/**
 * The TypeScript type of a JSON Schema value (the subset the contract writes: type, const, enum,
 * oneOf, items, properties with required, additionalProperties and $ref into `Defs`), so a
 * view's type is read off its schema and can never drift from what the server is checked against.
 */
export type FromSchema<S, Defs> = S extends { readonly $ref: `#/components/schemas/${infer N}` }
  ? N extends keyof Defs
    ? FromSchema<Defs[N], Defs>
    : unknown
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly oneOf: infer O extends readonly unknown[] }
      ? FromSchema<O[number], Defs>
      : S extends { readonly enum: infer E extends readonly unknown[] }
        ? E[number]
        : S extends { readonly type: infer T extends readonly unknown[] }
          ? FromType<T[number], S, Defs>
          : S extends { readonly type: infer T }
            ? FromType<T, S, Defs>
            : unknown;

type Flat<T> = { [K in keyof T]: T[K] } & {};

type FromObject<S, Defs> = S extends { readonly properties: infer P; readonly required: infer R extends readonly unknown[] }
  ? Flat<
      { -readonly [K in keyof P as K extends R[number] ? K : never]: FromSchema<P[K], Defs> } & {
        -readonly [K in keyof P as K extends R[number] ? never : K]?: FromSchema<P[K], Defs>;
      } & (S extends { readonly additionalProperties: infer A extends object } ? Record<string, FromSchema<A, Defs>> : unknown)
    >
  : Record<string, unknown>;

type FromType<T, S, Defs> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? Array<FromSchema<I, Defs>>
            : unknown[]
          : T extends 'object'
            ? FromObject<S, Defs>
            : unknown;
