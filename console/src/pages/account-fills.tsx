import { useEffect, useState } from 'preact/hooks';
import type { ExchangeKeyInfo, Receipt, RfqFillRow } from '@legwork/protocol';
import { call, describeError } from '../api';
import { trimDecimal } from '../money';
import { checkReceipt } from '../receipts';
import { ErrorText, time, usePoll } from '../ui';

/** A row of GET /query/rfq-fills (the contract's). */
type FillRow = RfqFillRow;

let keys: Promise<ExchangeKeyInfo[]> | null = null;
/** The exchange's published keys, read once per page load (rotation appends; a reload picks it up). */
const exchangeKeys = () => (keys ??= call<{ keys: ExchangeKeyInfo[] }>('keys', { bearer: null }).then((k) => k.keys));

/** A receipt checked here, in the browser (hash, signature, key, that it is this fill's; on a taker row, this taker's). */
function ReceiptCell({ receipt, fill, kind, taker }: { receipt: Receipt | null | undefined; fill: FillRow; kind: 0 | 1; taker?: string }) {
  const [problem, setProblem] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    if (!receipt) return;
    let live = true;
    exchangeKeys()
      .then((k) => checkReceipt(receipt, k, fill, kind, taker))
      .then(
        (p) => live && setProblem(p),
        (e) => live && setProblem(describeError(e)),
      );
    return () => {
      live = false;
    };
  }, [receipt?.hash, taker]);
  if (!receipt) return <span class="muted">—</span>;
  const label = `#${receipt.journal_seq}`;
  if (problem === undefined) return <span>{label} …</span>;
  return problem === null ? (
    <span class="ok" title={receipt.hash} data-testid="receipt-ok">
      {label} verified
    </span>
  ) : (
    <span class="bad" data-testid="receipt-bad">
      {label} not valid: {problem}
    </span>
  );
}

/** The account's latest fills, each with its receipts checked here; `wallet` is the account's (its taker rows must be its own). */
export function AccountFills({ accountId, wallet }: { accountId: number; wallet: string | undefined }) {
  const fills = usePoll(() => call<{ rows: FillRow[] }>('rfqFills', { query: { account_id: accountId, limit: 50 } }), 3000);
  return (
    <>
      <h3>Fills</h3>
      <ErrorText error={fills.error} />
      <table data-testid="fills">
        <thead>
          <tr>
            <th scope="col">Fill</th>
            <th scope="col">RFQ</th>
            <th scope="col">Role</th>
            <th scope="col">Side</th>
            <th scope="col">Legs</th>
            <th scope="col">Price</th>
            <th scope="col">Fee</th>
            <th scope="col">Filled</th>
            <th scope="col">Receipt</th>
          </tr>
        </thead>
        <tbody>
          {(fills.data?.rows ?? []).map((f) => {
            const taker = f.role === 'taker' ? wallet : undefined;
            return (
              <tr key={f.fill_id}>
                <td class="num">{f.fill_id}</td>
                <td class="mono">{f.rfq_id.slice(0, 12)}…</td>
                <td>{f.role}</td>
                <td>{f.side}</td>
                <td>{f.legs.map((l) => `${trimDecimal(l.quantity)} ${l.instrument}`).join(', ')}</td>
                <td class="num">{trimDecimal(f.price)}</td>
                <td class="num">{trimDecimal(f.fee)}</td>
                <td>
                  {time(f.filled_at)}
                  {f.reverted ? ' (reverted)' : ''}
                </td>
                <td>
                  <ReceiptCell receipt={f.receipt} fill={f} kind={0} taker={taker} />
                  {f.revert_receipt && (
                    <>
                      {' '}
                      revert <ReceiptCell receipt={f.revert_receipt} fill={f} kind={1} taker={taker} />
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
