import type { Node, ObjectNode } from './params';

/** A JSON Schema (draft-07, the AsyncAPI schema dialect). */
export type JsonSchema = Record<string, unknown>;

/** A reference to a schema of components.schemas (the parser's validation of the document proves every one resolves). */
export const ref = <const N extends string>(name: N): { $ref: `#/components/schemas/${N}` } => ({ $ref: `#/components/schemas/${name}` });

const defined = (schema: JsonSchema): JsonSchema => Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined));

/** The node as the document shows it: its named schema when it has one, else inline. */
function jsonSchemaOf(node: Node<unknown>): JsonSchema {
  if (node.kind === 'service') return jsonSchemaOf({ ...node.documented, description: node.description ?? node.documented.description });
  const doc = { description: node.description, default: node.default };
  return defined(node.ref ? { ...ref(node.ref), ...doc } : { ...inlineSchemaOf(node), ...doc });
}

/** The node's own checks as JSON Schema, ignoring its name (to compare with components.schemas). */
export function inlineSchemaOf(node: Node<unknown>): JsonSchema {
  switch (node.kind) {
    case 'string':
      return defined({ type: 'string', pattern: node.pattern?.source, enum: node.enum ? [...node.enum] : undefined, maxLength: node.maxLength });
    case 'integer':
      return defined({ type: 'integer', minimum: node.minimum, maximum: node.maximum });
    case 'boolean':
      return { type: 'boolean' };
    case 'decimal':
      return { type: 'string', pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$' };
    case 'u64':
      return { type: 'string', pattern: '^[1-9][0-9]*$' };
    case 'array':
      return defined({
        type: 'array',
        items: jsonSchemaOf(node.items),
        minItems: node.minItems,
        maxItems: node.maxItems,
        uniqueItems: node.unique ? true : undefined,
      });
    case 'service':
      return inlineSchemaOf(node.documented);
    case 'object':
      return objectSchemaOf(node);
  }
}

/** An object's properties (with runtime defaults documented), required fields and no others. */
export function objectSchemaOf(node: ObjectNode<unknown>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, prop] of Object.entries(node.props)) {
    const schema = jsonSchemaOf(prop.node);
    const value = prop.default?.value;
    properties[key] = value !== undefined && value !== null && schema.default === undefined ? { ...schema, default: value } : schema;
    if (!prop.optional && !prop.default) required.push(key);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}
