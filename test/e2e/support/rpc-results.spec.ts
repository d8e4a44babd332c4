import { checkNotification, checkResult } from './rpc-results';

describe('the e2e clients check every JSON-RPC result against the contract', () => {
  const cancelled = { rfq_id: 'ab'.repeat(16), state: 'expired', cancelled_at: 1_700_000_000 };

  it('passes a result the method declares', () => {
    expect(() => checkResult('rfq.cancel', cancelled)).not.toThrow();
    expect(() => checkResult('rfq.maker.poll', { items: [] })).not.toThrow();
  });

  it('fails a result with a field the contract does not declare, or a wrong type', () => {
    expect(() => checkResult('rfq.cancel', { ...cancelled, reason: 'x' })).toThrow(/result of rfq.cancel .*additional properties .*reason/);
    expect(() => checkResult('rfq.cancel', { ...cancelled, cancelled_at: '1' })).toThrow(/must be integer/);
  });

  it('checks notifications against the events of their channel', () => {
    expect(() => checkNotification('session', { seq: 1, event: 'expired' })).not.toThrow();
    expect(() => checkNotification('session', { seq: 1, event: 'expired', extra: true })).toThrow(/session notification/);
  });
});
