import type { RouteResult } from '@legwork/protocol';
import { call } from '../api';
import { Chart } from '../chart';
import { trimDecimal } from '../money';
import { payoffCurve, roundsOf } from '../payoff';
import { ErrorText, time, usePoll } from '../ui';

/** The account's open positions, and the payoff at expiry of each round they are in. */
export function AccountPositions({ accountId }: { accountId: number }) {
  const positions = usePoll(() => call<RouteResult<'query.rfq-positions'>>('rfqPositions', { query: { account_id: accountId, status: 'open' } }), 3000);
  return (
    <>
      <h3>Open positions</h3>
      <ErrorText error={positions.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Instrument</th>
            <th scope="col">Quantity</th>
            <th scope="col">Average price</th>
          </tr>
        </thead>
        <tbody>
          {(positions.data?.rows ?? []).map((p) => (
            <tr key={p.instrument}>
              <td>{p.instrument}</td>
              <td class="num">{trimDecimal(p.quantity)}</td>
              <td class="num">{trimDecimal(p.average_price)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {roundsOf(positions.data?.rows ?? []).map((round) => {
        const curve = payoffCurve(round);
        return (
          <div key={round.key} class="payoff" data-testid={`payoff-${round.key}`}>
            <h3>
              Payoff at expiry: {round.asset} {time(round.expiry)}
            </h3>
            <Chart
              label={`Payoff at expiry of the ${round.asset} ${time(round.expiry)} positions by settlement price`}
              x={curve.prices}
              y={curve.payoffs}
              xLabel="settlement price"
              yLabel="payoff (USDC)"
            />
          </div>
        );
      })}
    </>
  );
}
