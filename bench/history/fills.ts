import { createHash, randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { Ed25519Signer, encodeReceipt, encodeWallet, keyIdOf, publicKeyFromSeed, receiptHash, signingDomain, takerCommitment } from '@legwork/protocol';
import { asBuffer } from '../../src/common/bytes';
import { uuidV7Hex } from '../../src/modules/rfq/domain/uuid-v7';
import {
  type Account,
  DAY,
  EXCHANGE_SEED,
  type Expiration,
  FEE_ACCOUNT,
  type Scale,
  type YearInstrument,
  decimal,
  firstPlainTaker,
  hotTakerId,
  makerId,
  prng,
} from './plan';

/**
 * The year's filled RFQs, written from Node because their receipts must be real: each fill's
 * StrategyFillReceipt is encoded, hashed into the chain and signed with the exchange's key
 * (the one every bench server starts with) exactly as JournalService.append does, so that
 * `verify-journal` walks an unbroken chain. Batches of 2,000 fills, one statement each (the RFQ
 * rows, accepts, fills, legs and receipts as five CTE inserts over unnest arrays), the next batch
 * generated while PostgreSQL writes the last.
 */
const BATCH = 2_000;

interface Leg {
  symbol: string;
  strike: bigint;
  kind: 'call' | 'put';
  quantity: bigint;
  premium: bigint;
}

interface Fill {
  id: number;
  rfqId: string;
  quoteId: string;
  taker: number;
  maker: number;
  side: 'buy' | 'sell';
  price: bigint;
  bid: bigint;
  ask: bigint;
  fee: bigint;
  at: number;
  round: Expiration;
  legs: Leg[];
  salt: Buffer;
}

interface FillsContext {
  scale: Scale;
  day0: number;
  accounts: Map<number, Account>;
  rounds: Expiration[];
  instrumentsOf: Map<string, YearInstrument[]>;
  /** Fills newer than this (unix seconds) keep their rfq_events (RFQ_HISTORY_DAYS). */
  retentionCutoff: number;
}

const roundKey = (e: { asset: string; expiry: number }) => `${e.asset} ${e.expiry}`;

/** The taker of fill i: 12% the first hot taker (the deep /query/rfq-fills page), 18% the other hot ones. */
function pickTaker(s: Scale, r: number, r2: number): number {
  if (r < 0.12) return hotTakerId(s, 0);
  if (r < 0.3) return hotTakerId(s, 1 + Math.floor(r2 * (s.hotTakers - 1)));
  return firstPlainTaker(s) + Math.floor(r2 * (s.accounts - firstPlainTaker(s) + 1));
}

function pickRound(ctx: FillsContext, at: number, r: number, r2: number): Expiration {
  const asset = Math.floor(r * ctx.scale.assets);
  const open = ctx.rounds.filter((e) => e.assetIndex === asset && e.expiry > at + 3600);
  return open[r2 < 0.7 || open.length === 1 ? 0 : 1];
}

function makeFill(ctx: FillsContext, id: number, rand: () => number): Fill {
  const s = ctx.scale;
  const start = ctx.day0 - 365 * DAY;
  const at = start + Math.floor((id * (365 * DAY - 2 * 3600)) / s.filled);
  const round = pickRound(ctx, at, rand(), rand());
  const list = ctx.instrumentsOf.get(roundKey(round))!;
  const r = rand();
  const n = r < 0.4 ? 1 : r < 0.7 ? 2 : r < 0.9 ? 3 : 4;
  const picked = new Set<number>();
  while (picked.size < n) picked.add(Math.floor(rand() * list.length));
  const legs: Leg[] = [...picked].map((k, i) => {
    const inst = list[k];
    const size = BigInt(1 + Math.floor(rand() * 5)) * 1_000_000n;
    const quantity = i === 0 || rand() < 0.5 ? size : -size;
    const unit = (inst.strike * BigInt(1 + Math.floor(rand() * 5))) / 100n;
    return { symbol: inst.symbol, strike: inst.strike, kind: inst.kind, quantity, premium: (unit * quantity) / 1_000_000n };
  });
  const price = legs.reduce((sum, l) => sum + l.premium, 0n);
  const spread = (price < 0n ? -price : price) / 100n + 1n;
  const side = rand() < 0.6 ? 'buy' : 'sell';
  const rfqMs = (at - 2) * 1000 + Math.floor(rand() * 1000);
  const fee = ((price < 0n ? -price : price) * 3n) / 10_000n;
  return {
    id,
    rfqId: uuidV7Hex(rfqMs, (BigInt(id) * 0x9e3779b97f4a7c15n) & ((1n << 73n) - 1n)),
    quoteId: createHash('sha256').update(`quote-${id}`).digest('hex'),
    taker: pickTaker(s, rand(), rand()),
    maker: makerId(rand() < 0.5 ? Math.floor(rand() * Math.min(5, s.makers)) : Math.floor(rand() * s.makers)),
    side,
    price,
    bid: side === 'buy' ? price - spread : price,
    ask: side === 'buy' ? price : price + spread,
    fee,
    at,
    round,
    legs,
    salt: randomBytes(32),
  };
}

/** The receipt chain's state: the last hash, and the signer. */
class Journal {
  private readonly signer = new Ed25519Signer(EXCHANGE_SEED);
  readonly keyId = keyIdOf(publicKeyFromSeed(EXCHANGE_SEED));
  private readonly domain = signingDomain('Legwork');
  head: Buffer = Buffer.alloc(32);

  receipt(f: Fill, ctx: FillsContext): { payload: Buffer; hash: string; prevHash: string; signature: string } {
    const payload = asBuffer(
      encodeReceipt({
        kind: 0,
        domain: this.domain,
        journalSeq: BigInt(f.id),
        prevHash: this.head,
        rfqId: f.rfqId,
        quoteId: f.quoteId,
        takerCommitment: takerCommitment(f.salt, ctx.accounts.get(f.taker)!.publicKey),
        maker: ctx.accounts.get(f.maker)!.publicKey,
        side: f.side,
        price: f.price,
        fee: f.fee,
        at: f.at,
        fillId: BigInt(f.id),
        legs: f.legs.map((l) => ({ symbol: l.symbol, strike: l.strike, kind: l.kind, quantity: l.quantity })),
      }),
    );
    const prevHash = this.head.toString('hex');
    this.head = asBuffer(receiptHash(payload));
    return { payload, hash: this.head.toString('hex'), prevHash, signature: Buffer.from(this.signer.sign(payload)).toString('base64') };
  }
}

const INSERT = `WITH r AS (
    INSERT INTO rfqs (id, account_id, client_ref, legs, asset, expiry, state, created_at, updated_at, expires_at, max_quote_expires_at,
                      quote_id, maker_account_id, maker_wallet, quote_nonce, bid, ask, issued_at, quote_expires_at, maker_signature,
                      quote_received_at_ms, accepted_side, fill_id, fill_price, fill_fee, filled_at, ended_at, events_pruned_at)
    SELECT id, taker, 'y' || fid, legs::jsonb, asset, expiry, 'filled', at - 2, at, at + 28, least(at - 2 + 3600, expiry),
           quote_id, maker, maker_wallet, fid, bid, ask, at - 2, at + 28, sig, (at - 2) * 1000,
           side, fid, price, fee, at, at, CASE WHEN at < $17 THEN at END
      FROM unnest($1::char(32)[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::char(64)[], $7::bigint[], $8::text[],
                  $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::text[], $15::bigint[], $16::text[])
           AS u(id, taker, legs, asset, expiry, quote_id, maker, maker_wallet, fid, bid, ask, price, fee, side, at, sig)),
  a AS (
    INSERT INTO accepts (rfq_id, quote_id, side, fee, max_fee, taker_signature, expires_at, accepted_at)
    SELECT id, quote_id, side, fee, fee, sig, at + 28, at - 1
      FROM unnest($1::char(32)[], $6::char(64)[], $14::text[], $13::bigint[], $16::text[], $15::bigint[]) AS u(id, quote_id, side, fee, sig, at)),
  f AS (
    INSERT INTO fills (id, rfq_id, quote_id, taker_account_id, maker_account_id, fee_account_id, side, price, fee, filled_at, taker_salt)
    SELECT fid, id, quote_id, taker, maker, ${FEE_ACCOUNT}, side, price, fee, at, salt
      FROM unnest($9::bigint[], $1::char(32)[], $6::char(64)[], $2::bigint[], $7::bigint[], $14::text[], $12::bigint[], $13::bigint[],
                  $15::bigint[], $18::bytea[]) AS u(fid, id, quote_id, taker, maker, side, price, fee, at, salt)),
  l AS (
    INSERT INTO fill_legs (fill_id, leg_index, instrument, quantity, premium, mark)
    SELECT fid, ix, instrument, quantity, premium, premium
      FROM unnest($19::bigint[], $20::smallint[], $21::text[], $22::bigint[], $23::bigint[]) AS u(fid, ix, instrument, quantity, premium))
  INSERT INTO receipts (journal_seq, kind, fill_id, payload, hash, prev_hash, key_id, signature, at)
  SELECT fid, 0, fid, payload, hash, prev_hash, $24, signature, at
    FROM unnest($9::bigint[], $25::bytea[], $26::char(64)[], $27::char(64)[], $28::text[], $15::bigint[]) AS u(fid, payload, hash, prev_hash, signature, at)`;

function batchParams(fills: Fill[], ctx: FillsContext, journal: Journal): unknown[] {
  const col = <T>(pick: (f: Fill) => T) => fills.map(pick);
  const legs = fills.flatMap((f) => f.legs.map((l, ix) => ({ fid: f.id, ix, l })));
  const receipts = fills.map((f) => journal.receipt(f, ctx));
  const sig = (f: Fill) => createHash('sha512').update(`sig-${f.id}`).digest('base64');
  return [
    col((f) => f.rfqId),
    col((f) => f.taker),
    col((f) => JSON.stringify(f.legs.map((l) => ({ instrument: l.symbol, quantity: decimal(l.quantity) })))),
    col((f) => f.round.asset),
    col((f) => f.round.expiry),
    col((f) => f.quoteId),
    col((f) => f.maker),
    col((f) => ctx.accounts.get(f.maker)!.wallet),
    col((f) => f.id),
    col((f) => f.bid.toString()),
    col((f) => f.ask.toString()),
    col((f) => f.price.toString()),
    col((f) => f.fee.toString()),
    col((f) => f.side),
    col((f) => f.at),
    col(sig),
    ctx.retentionCutoff,
    col((f) => f.salt),
    legs.map((x) => x.fid),
    legs.map((x) => x.ix),
    legs.map((x) => x.l.symbol),
    legs.map((x) => x.l.quantity.toString()),
    legs.map((x) => x.l.premium.toString()),
    journal.keyId,
    receipts.map((r) => r.payload),
    receipts.map((r) => r.hash),
    receipts.map((r) => r.prevHash),
    receipts.map((r) => r.signature),
  ];
}

/** Writes every filled RFQ of the year with its accept, fill, legs and receipt; moves journal_head. */
export async function writeFills(client: Client, ctx: FillsContext, log: (line: string) => void): Promise<void> {
  const journal = new Journal();
  const rand = prng(20_261_126);
  let pending: Promise<unknown> = Promise.resolve();
  const t0 = Date.now();
  for (let first = 1; first <= ctx.scale.filled; first += BATCH) {
    const fills: Fill[] = [];
    for (let id = first; id < first + BATCH && id <= ctx.scale.filled; id++) fills.push(makeFill(ctx, id, rand));
    const params = batchParams(fills, ctx, journal);
    await pending;
    pending = client.query(INSERT, params);
    if ((first - 1) % (BATCH * 50) === 0) log(`history: fills ${first - 1} of ${ctx.scale.filled} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await pending;
  await client.query(`UPDATE journal_head SET journal_seq = $1, hash = $2 WHERE id = 1`, [ctx.scale.filled, journal.head.toString('hex')]);
  await client.query(`SELECT setval('fills_id_seq', $1)`, [ctx.scale.filled]);
  await client.query(`INSERT INTO exchange_keys (key_id, public_key, from_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
    journal.keyId,
    encodeWallet(publicKeyFromSeed(EXCHANGE_SEED)),
    ctx.day0 - 366 * DAY,
  ]);
}
