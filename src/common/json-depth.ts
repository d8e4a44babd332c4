/**
 * Nesting limits of untrusted JSON (docs/spec/design.md section 10): checked before any code that walks a
 * value recursively (validators, transformers, handlers), which a value 20,000 levels deep would
 * otherwise overflow.
 */

/** Request bodies and JSON-RPC params nest at most this deep (the value itself is level 1). */
export const MAX_JSON_DEPTH = 16;

/**
 * Whether a JSON value nests deeper than `limit` levels (the value itself is level 1). Stops at
 * `limit + 1`: its recursion is bounded whatever the input's depth.
 */
export function deeperThan(value: unknown, limit: number, level = 1): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (level > limit) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperThan(value[i], limit, level + 1)) return true;
    return false;
  }
  for (const key in value) if (deeperThan((value as Record<string, unknown>)[key], limit, level + 1)) return true;
  return false;
}
