import type { ReplayTicket } from '../../common/rpc/event-source';
import { ReplayAllowance } from './replay-allowance';

/** A ticket whose leases answer when told to, each with at most `most` events. */
function ticketOf(most: number) {
  const asked: number[] = [];
  const pending: Array<() => void> = [];
  let released = false;
  const ticket: ReplayTicket = {
    grant: (want) => {
      asked.push(want);
      return new Promise((resolve) => pending.push(() => resolve(released ? 0 : Math.min(want, most))));
    },
    release: () => (released = true),
  };
  const answer = async () => {
    pending.shift()?.();
    await Promise.resolve();
  };
  return { ticket, asked, pending, answer };
}

describe('ReplayAllowance', () => {
  it('hands out what was granted, at most `most` at a time, and leases again only when it is spent', async () => {
    const { ticket, asked, answer } = ticketOf(50);
    const allowance = new ReplayAllowance(ticket);
    const first = allowance.take(32, 100);
    await answer();
    expect(await first).toBe(32);
    allowance.spend(32);
    expect(await allowance.take(32, 68)).toBe(18);
    allowance.spend(18);
    expect(asked).toEqual([100]);
    const next = allowance.take(32, 50);
    expect(asked).toEqual([100, 50]);
    await answer();
    expect(await next).toBe(32);
  });

  it('asks ahead once at a time, and the lease asked ahead is the next one taken', async () => {
    const { ticket, asked, answer } = ticketOf(1000);
    const allowance = new ReplayAllowance(ticket);
    allowance.ahead(100);
    allowance.ahead(400);
    expect(asked).toEqual([100]);
    await answer();
    expect(await allowance.take(32, 7)).toBe(32);
    // Taken in: the next one may be asked ahead.
    allowance.ahead(400);
    expect(asked).toEqual([100, 400]);
    allowance.ahead(0);
    expect(asked).toEqual([100, 400]);
  });

  it('answers 0 once the ticket no longer grants (released)', async () => {
    const { ticket, answer } = ticketOf(10);
    const allowance = new ReplayAllowance(ticket);
    allowance.ahead(10);
    ticket.release();
    const taken = allowance.take(10, 10);
    await answer();
    expect(await taken).toBe(0);
  });
});
