/**
 * Where two StrategyQuotePayloads differ, by field (docs/spec/design.md section 9's layout): what a maker
 * reads when the exchange refused its signature and `rfq.maker.check` gave back the exchange's bytes.
 */

const HEAD: ReadonlyArray<[name: string, from: number, to: number]> = [
  ['tag', 0, 14],
  ['version', 14, 15],
  ['leg_count', 15, 16],
  ['domain (service name)', 16, 48],
  ['rfq_id', 48, 64],
  ['maker', 64, 96],
  ['quote_nonce', 96, 104],
  ['bid', 104, 112],
  ['ask', 112, 120],
  ['issued_at', 120, 128],
  ['expires_at', 128, 136],
  ['asset', 136, 152],
  ['expiry', 152, 160],
  ['reserved', 160, 218],
];
const LEGS_OFFSET = 218;
const LEG_SLOT = 64;
const LEG_FIELDS: ReadonlyArray<[name: string, from: number, to: number]> = [
  ['symbol', 0, 32],
  ['strike', 32, 40],
  ['kind', 40, 48],
  ['quantity', 48, 56],
  ['reserved', 56, 64],
];

/** The field that holds byte `offset` of a payload. */
function fieldAt(offset: number): string {
  const head = HEAD.find(([, from, to]) => offset >= from && offset < to);
  if (head) return head[0];
  const leg = Math.floor((offset - LEGS_OFFSET) / LEG_SLOT);
  const inSlot = (offset - LEGS_OFFSET) % LEG_SLOT;
  const field = LEG_FIELDS.find(([, from, to]) => inSlot >= from && inSlot < to)!;
  return `legs[${leg}].${field[0]}`;
}

/** The fields whose bytes differ, in payload order (a length mismatch is named first). */
export function payloadDiff(ours: Uint8Array, theirs: Uint8Array): string[] {
  const fields: string[] = [];
  if (ours.length !== theirs.length) fields.push(`length (ours ${ours.length}, the exchange's ${theirs.length})`);
  for (let i = 0; i < Math.min(ours.length, theirs.length); i++) {
    if (ours[i] === theirs[i]) continue;
    const field = fieldAt(i);
    if (fields[fields.length - 1] !== field) fields.push(field);
  }
  return fields;
}
