/** The Retry-After header of a 429: whole seconds, at least 1 (docs/spec/design.md section 16). */
export function retryAfterSeconds(waitMs: number | undefined): string {
  return String(Math.max(1, Math.ceil((waitMs ?? 1000) / 1000)));
}
