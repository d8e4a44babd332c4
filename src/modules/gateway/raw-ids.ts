/**
 * The `id` of a request as its sender wrote it. JSON.parse reads every number as a double, so an
 * integer id beyond 2^53 would come back changed; the JSON-RPC 2.0 specification wants the id
 * echoed as sent (docs/spec/interface.md 4.2: RpcId is a string, an integer or null), so such an
 * id is read again from the frame text and echoed as that text.
 */

/** An integer id that a double cannot hold: its token as it appears in the frame. */
export class RawIntegerId {
  constructor(readonly text: string) {}

  /** Outside a reply frame (a log line), the id is its text. */
  toJSON(): string {
    return this.text;
  }
}

const NUMBER = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Whether a JSON number token is mathematically an integer (`12345678901234567890`, `1.5e300`; not `1e20.5`-like fractions). */
export function isIntegerToken(token: string): boolean {
  const m = NUMBER.exec(token);
  if (!m) return false;
  const digits = (m[1] + (m[2] ?? '')).replace(/^0+(?=\d)/, '');
  let scale = (m[2] ?? '').length - Number(m[3] ?? 0);
  let end = digits.length;
  while (scale > 0 && end > 0 && digits[end - 1] === '0') {
    end -= 1;
    scale -= 1;
  }
  return scale <= 0 || /^0*$/.test(digits);
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** A cursor over text that JSON.parse has already accepted (so it is valid JSON). */
class Cursor {
  pos = 0;
  constructor(private readonly text: string) {}

  ws(): void {
    while (WHITESPACE.has(this.text[this.pos])) this.pos += 1;
  }

  peek(): string {
    return this.text[this.pos];
  }

  /** Skips a string at the cursor; returns its raw text, quotes included. */
  string(): string {
    const start = this.pos;
    this.pos += 1;
    while (this.text[this.pos] !== '"') this.pos += this.text[this.pos] === '\\' ? 2 : 1;
    this.pos += 1;
    return this.text.slice(start, this.pos);
  }

  /** Skips any value at the cursor (no recursion: nesting is only counted); returns its raw text. */
  value(): string {
    const start = this.pos;
    const c = this.peek();
    if (c === '"') return this.string();
    if (c !== '{' && c !== '[') {
      while (this.pos < this.text.length && !',]}'.includes(this.text[this.pos]) && !WHITESPACE.has(this.text[this.pos])) this.pos += 1;
      return this.text.slice(start, this.pos);
    }
    let depth = 0;
    do {
      const ch = this.text[this.pos];
      if (ch === '"') {
        this.string();
        continue;
      }
      if (ch === '{' || ch === '[') depth += 1;
      else if (ch === '}' || ch === ']') depth -= 1;
      this.pos += 1;
    } while (depth > 0);
    return this.text.slice(start, this.pos);
  }

  /** Skips the object at the cursor; returns the raw text of its last `id` member (the one JSON.parse keeps). */
  objectId(): string | undefined {
    let id: string | undefined;
    this.pos += 1;
    this.ws();
    while (this.peek() !== '}') {
      const key = this.string();
      this.ws();
      this.pos += 1; // ':'
      this.ws();
      const value = this.value();
      if (key === '"id"' || JSON.parse(key) === 'id') id = value;
      this.ws();
      if (this.peek() === ',') {
        this.pos += 1;
        this.ws();
      }
    }
    this.pos += 1;
    return id;
  }
}

/**
 * The raw `id` tokens of a frame: for one request object, `[token]`; for a batch, one entry per
 * element (undefined where the element is not an object or has no id).
 */
export function rawIdTokens(text: string): Array<string | undefined> {
  const cursor = new Cursor(text);
  cursor.ws();
  if (cursor.peek() === '{') return [cursor.objectId()];
  if (cursor.peek() !== '[') return [];
  const tokens: Array<string | undefined> = [];
  cursor.pos += 1;
  cursor.ws();
  while (cursor.peek() !== ']') {
    if (cursor.peek() === '{') tokens.push(cursor.objectId());
    else {
      cursor.value();
      tokens.push(undefined);
    }
    cursor.ws();
    if (cursor.peek() === ',') {
      cursor.pos += 1;
      cursor.ws();
    }
  }
  return tokens;
}

/** A request whose id JSON.parse read as a number a double cannot hold exactly. */
const hasLargeId = (value: unknown): value is { id: number } =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as { id?: unknown }).id === 'number' &&
  !Number.isSafeInteger((value as { id: number }).id);

/**
 * Puts back, into the parsed frame, the id of every request whose number id is not a safe
 * integer: a RawIntegerId of its text when that text is an integer, else left as parsed (refused
 * later as not an integer). Scans the text only when such an id exists.
 */
export function restoreLargeIds(text: string, parsed: unknown): void {
  const requests = Array.isArray(parsed) ? parsed : [parsed];
  if (!requests.some(hasLargeId)) return;
  const tokens = rawIdTokens(text);
  requests.forEach((request, i) => {
    const token = tokens[i];
    if (hasLargeId(request) && token !== undefined && isIntegerToken(token)) (request as { id: unknown }).id = new RawIntegerId(token);
  });
}
