import { randomBytes } from 'node:crypto';
import type { Database } from '../../../src/common/database/database';
import type { StoredQuote } from '../../../src/modules/rfq/domain/rfq-record';
import type { NewRfq } from '../../../src/modules/rfq/rfq-move';

/** Rows for the repository specs, written straight to a test database. The specs' clock: unix seconds. */
export const NOW = 1_795_000_000;

export async function account(db: Database, openRfqs = 0): Promise<number> {
  const row = await db.one<{ id: string }>(`INSERT INTO accounts (wallet, open_rfqs) VALUES ($1, $2) RETURNING id`, [
    `repo-${randomBytes(12).toString('hex')}`,
    openRfqs,
  ]);
  return Number(row!.id);
}

export function newRfq(accountId: number, overrides: Partial<NewRfq> = {}): NewRfq {
  return {
    id: randomBytes(16).toString('hex'),
    accountId,
    clientRef: randomBytes(8).toString('hex'),
    legs: [{ instrument: 'SOL-27DEC26-150-C', quantity: '1' }],
    asset: 'SOL',
    expiry: NOW + 86_400,
    createdAt: NOW,
    expiresAt: NOW + 120,
    maxQuoteExpiresAt: NOW + 3_600,
    ...overrides,
  };
}

export function quoteOf(makerAccountId: number, nonce: bigint): StoredQuote {
  return {
    quoteId: randomBytes(32).toString('hex'),
    makerAccountId,
    makerWallet: 'W',
    quoteNonce: nonce,
    bid: 1_000_000n,
    ask: 2_000_000n,
    issuedAt: NOW + 1,
    expiresAt: NOW + 60,
    makerSignature: 'S',
  };
}

export const count = async (db: Database, text: string, params: unknown[]) => Number((await db.one<{ n: string }>(text, params))!.n);
