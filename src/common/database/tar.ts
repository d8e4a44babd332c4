/** A tar's 512-byte blocks: a header per entry, its data padded to a whole block, two zero blocks at the end. */
const BLOCK = 512;

interface TarEntry {
  /** The path as stored (PGlite's `dumpDataDir` stores `/PG_VERSION`, `/base/...`). */
  name: string;
  /** Offset of the header and the offset past the entry's last data block. */
  start: number;
  end: number;
}

function field(header: Buffer, from: number, length: number): string {
  const text = header.subarray(from, from + length).toString('latin1');
  const nul = text.indexOf('\0');
  return nul === -1 ? text : text.slice(0, nul);
}

/**
 * The entries of a tar (ustar or v7 headers, every header checksum checked), or null when the
 * bytes are not a whole tar.
 */
export function tarEntries(tar: Buffer): TarEntry[] | null {
  const entries: TarEntry[] = [];
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return entries;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
    if (!Number.isFinite(size) || size < 0 || parseInt(field(header, 148, 8).trim(), 8) !== sum) return null;
    const prefix = field(header, 257, 6).startsWith('ustar') ? field(header, 345, 155) : '';
    const end = at + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (end > tar.length) return null;
    entries.push({ name: (prefix ? `${prefix}/` : '') + field(header, 0, 100), start: at, end });
    at = end;
  }
  return null;
}

/** The tar without the entries whose name (leading slashes aside) is in `names`. */
export function tarWithout(tar: Buffer, names: readonly string[]): Buffer {
  const entries = tarEntries(tar);
  if (!entries) throw new Error('not a tar');
  const drop = new Set(names);
  const kept = entries.filter((e) => !drop.has(e.name.replace(/^\/+/, '')));
  return Buffer.concat([...kept.map((e) => tar.subarray(e.start, e.end)), Buffer.alloc(2 * BLOCK)]);
}
