import { formatRfq, parseHttpDecimal } from '@legwork/protocol';

/** How the console shows money; the exact decimals themselves (bigint micro-units) are `@legwork/protocol`'s. */

/** Micro-units as a plain number of units (for a chart axis only). */
export const plotNumber = (micro: bigint) => Number(micro) / 1e6;

/** "12.50000000" → "12.5" for tables: the exact value in its shortest form; text that is not a decimal is shown as it is. */
export function trimDecimal(text: string | null | undefined): string {
  if (text === null || text === undefined) return '—';
  try {
    return formatRfq(parseHttpDecimal(text));
  } catch {
    return text;
  }
}
