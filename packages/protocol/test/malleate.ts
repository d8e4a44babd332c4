/** The ed25519 group order L. */
const L = (1n << 252n) + 27742317777372353535851937790883648493n;

/**
 * The signature with L added to S: the same point equation, a second text of one signature, which
 * a verifier that does not refuse S >= L (tweetnacl) accepts.
 */
export function addOrderToS(signature: Uint8Array): Uint8Array {
  const out = Buffer.from(signature);
  const s = BigInt('0x' + Buffer.from(out.subarray(32)).reverse().toString('hex')) + L;
  out.set(Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse(), 32);
  return out;
}
