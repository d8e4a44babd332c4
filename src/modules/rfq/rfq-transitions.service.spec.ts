import type { Notification, Notifier } from '../../common/broadcast/notifier';
import { Clock } from '../../common/clock';
import type { Database } from '../../common/database/database';
import { logger } from '../../common/logging/logger';
import type { RfqRecord } from './domain/rfq-record';
import type { JobRunner } from '../../common/jobs/job-runner';
import { MetricsService } from '../health/metrics.service';
import { RfqRepository } from './rfq.repository';
import { RfqTransitionsService } from './rfq-transitions.service';

const base: RfqRecord = {
  id: '01935f3a8b2c7d4e8f00112233445566',
  accountId: 7,
  clientRef: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  legs: [{ instrument: 'SOL-27DEC26-150-C', quantity: 1_000_000n }],
  asset: 'SOL',
  expiry: 1_798_358_400,
  state: 'pending',
  createdAt: 1_795_000_000,
  updatedAt: 1_795_000_000,
  expiresAt: 1_795_000_120,
  maxQuoteExpiresAt: 1_795_003_600,
  quote: null,
  declineReason: null,
  declinedBy: null,
  acceptedSide: null,
  failure: null,
  fill: null,
  endedAt: null,
  cancelledAt: null,
  competition: null,
};
const quote = {
  quoteId: 'ab'.repeat(32),
  makerAccountId: 9,
  makerWallet: 'W',
  quoteNonce: 1n,
  bid: 1n,
  ask: 2n,
  issuedAt: 1_795_000_001,
  expiresAt: 1_795_000_060,
  makerSignature: 'S',
};

const metrics = () => new MetricsService({ depths: async () => ({}) } as unknown as JobRunner);

/** The notifications `announce` publishes for a move, with a fake notifier. */
async function announced(moved: RfqRecord, from: RfqRecord['state']): Promise<Notification[]> {
  const broadcasts: Notification[][] = [];
  const notifier = { notifyAll: async (n: Notification[]) => void broadcasts.push([...n]) } as unknown as Notifier;
  await new RfqTransitionsService({} as Database, {} as RfqRepository, new Clock(), notifier, metrics()).announce(moved, from);
  // One move, one broadcast (one Redis PUBLISH), whatever the number of its notifications.
  expect(broadcasts).toHaveLength(1);
  return broadcasts[0];
}

describe('RfqTransitionsService.announce (design.md section 5, Events)', () => {
  it('quoted: the taker hears quoted, every other quoter closed', async () => {
    const sent = await announced({ ...base, state: 'quoted', quote }, 'pending');
    expect(sent).toEqual([
      {
        channel: 'rfq',
        accountId: 7,
        data: {
          event: 'quoted',
          rfq: expect.objectContaining({ rfq_id: base.id, state: 'quoted', quote: expect.objectContaining({ quote_id: quote.quoteId }) }),
        },
      },
      { channel: 'rfq_maker', exceptAccountId: 9, data: { event: 'closed', rfq: expect.objectContaining({ rfq_id: base.id, state: 'quoted' }) } },
    ]);
    expect(sent[1].data.rfq).not.toHaveProperty('client_ref');
  });

  it('declined: closed to every quoter but the one that declined', async () => {
    const sent = await announced({ ...base, state: 'declined', declineReason: 'stale_data', declinedBy: 11 }, 'pending');
    expect(sent.map((n) => [n.channel, n.data.event, n.accountId, n.exceptAccountId])).toEqual([
      ['rfq', 'declined', 7, undefined],
      ['rfq_maker', 'closed', undefined, 11],
    ]);
  });

  it('expired while pending: closed to the quoters (not the taker)', async () => {
    const sent = await announced({ ...base, state: 'expired' }, 'pending');
    expect(sent.map((n) => [n.channel, n.data.event, n.accountId, n.exceptAccountId])).toEqual([
      ['rfq', 'expired', 7, undefined],
      ['rfq_maker', 'closed', undefined, 7],
    ]);
  });

  it('expired while quoted: the maker holding the quote hears expired', async () => {
    const sent = await announced({ ...base, state: 'expired', quote }, 'quoted');
    expect(sent[0]).toMatchObject({ channel: 'rfq', accountId: 7, data: { event: 'expired' } });
    const event = { rfq_id: base.id, quote_id: quote.quoteId, state: 'expired', side: null, fill: null };
    expect(sent[1]).toEqual({ channel: 'rfq_maker', accountId: 9, data: { event: 'expired', rfq: event } });
    expect(sent).toHaveLength(2);
  });

  it('accepted, filled and failed reach the maker; submitting only the taker', async () => {
    for (const [state, from] of [
      ['accepted', 'quoted'],
      ['filled', 'submitting'],
      ['failed', 'accepted'],
    ] as const) {
      const sent = await announced({ ...base, state, quote, acceptedSide: 'buy' }, from);
      expect(sent.map((n) => [n.channel, n.data.event, n.accountId])).toEqual([
        ['rfq', state, 7],
        ['rfq_maker', state, 9],
      ]);
      expect(sent[1].data).toEqual({ event: state, rfq: expect.objectContaining({ side: 'buy', quote_id: quote.quoteId }) });
    }
    const sent = await announced({ ...base, state: 'submitting', quote, acceptedSide: 'buy' }, 'accepted');
    expect(sent.map((n) => n.channel)).toEqual(['rfq']);
  });

  it('a notifier failure is swallowed (the state is in the database)', async () => {
    logger.setLevel('error');
    const notifier = { notifyAll: async () => Promise.reject(new Error('redis down')) } as unknown as Notifier;
    await expect(
      new RfqTransitionsService({} as Database, {} as RfqRepository, new Clock(), notifier, metrics()).announce({ ...base, state: 'expired' }, 'pending'),
    ).resolves.toBeUndefined();
  });

  it('refuses a move that is not in the table, before any SQL', async () => {
    const transitions = new RfqTransitionsService({} as Database, new RfqRepository({} as Database), new Clock(), {} as Notifier, metrics());
    await expect(transitions.moveWithin({} as never, { rfqId: base.id, from: 'pending', to: 'filled' })).rejects.toThrow('cannot move from pending to filled');
  });

  it('counts every move, the quote latency, and fill failures (not reverts) in the metrics', async () => {
    const m = metrics();
    const transitions = new RfqTransitionsService(
      {} as Database,
      {} as RfqRepository,
      new Clock(),
      { notifyAll: async () => undefined } as unknown as Notifier,
      m,
    );
    await transitions.created(base);
    await transitions.announce({ ...base, state: 'quoted', quote, updatedAt: base.createdAt + 2 }, 'pending');
    await transitions.announce({ ...base, state: 'failed', quote, failure: { error: 'RFQ_PRICE_TOLERANCE', message: 'x' } }, 'submitting');
    await transitions.announce({ ...base, state: 'failed', quote, failure: { error: 'RFQ_TX_FAILED', message: 'reverted' } }, 'filled');
    const text = (await m.scrape()).body;
    expect(text).toContain('legwork_rfq_transitions_total{from="none",to="pending"} 1');
    expect(text).toContain('legwork_rfq_transitions_total{from="pending",to="quoted"} 1');
    expect(text).toMatch(/legwork_rfq_quote_latency_seconds_sum 2\b/);
    expect(text).toContain('legwork_ledger_failures_total{code="RFQ_PRICE_TOLERANCE"} 1');
    expect(text).not.toContain('code="RFQ_TX_FAILED"');
  });
});
