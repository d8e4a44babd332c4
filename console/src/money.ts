/** Decimal text ↔ bigint micro-units (10^-6), as the server counts money. Floats only for plotting. */
export const MICRO = 1_000_000n;

export function toMicro(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`not a decimal: ${text}`);
  const fraction = (match[3] ?? '').padEnd(6, '0').slice(0, 6);
  const value = BigInt(match[2]) * MICRO + BigInt(fraction);
  return match[1] ? -value : value;
}

/** Micro-units as a plain number of units (for a chart axis only). */
export const plotNumber = (micro: bigint) => Number(micro) / 1e6;

/** "12.50000000" → "12.5" for tables (the exact text, trailing zeros trimmed). */
export function trimDecimal(text: string | null | undefined): string {
  if (text === null || text === undefined) return '—';
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
