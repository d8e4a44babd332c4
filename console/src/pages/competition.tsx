import type { ExchangeKeyInfo, SignedTranscript } from '@legwork/protocol';
import { useEffect, useState } from 'preact/hooks';
import { call, describeError } from '../api';
import { type RfqView, bestMarks, checkTranscript, competitionRunning, shortWallet } from '../competition';
import { trimDecimal } from '../money';
import { rpc } from '../rpc';
import { ErrorText, Section, time, usePoll } from '../ui';
import { DeskSession, useDesk } from './desk';

const legsText = (rfq: { legs: Array<{ instrument: string; quantity: string }> }) =>
  rfq.legs.map((l) => `${trimDecimal(l.quantity)} ${l.instrument}`).join(', ');
const ms = (at: number) => new Date(at).toISOString().replace('Z', '').split('T')[1];

/** The columns a live quote and a transcript's quote share, then the table's own. */
function QuoteHead({ more }: { more: string[] }) {
  return (
    <thead>
      <tr>
        {['Quote', 'Maker', 'Bid', 'Ask', 'Received', ...more].map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** The cells of those shared columns. */
function QuoteCells({ q }: { q: { quote_id: string; maker: string; bid: string; ask: string; received_at_ms: number } }) {
  return (
    <>
      <td class="mono">{q.quote_id.slice(0, 12)}…</td>
      <td class="mono" title={q.maker}>
        {shortWallet(q.maker)}
      </td>
      <td class="num">{trimDecimal(q.bid)}</td>
      <td class="num">{trimDecimal(q.ask)}</td>
      <td>{ms(q.received_at_ms)}</td>
    </>
  );
}

/** The live quotes of a running competition, in the order received, the best bid and ask marked. */
function LiveQuotes({ rfq }: { rfq: RfqView }) {
  const quotes = rfq.quotes ?? [];
  return (
    <table data-testid="live-quotes">
      <QuoteHead more={['Expires', 'Best']} />
      <tbody>
        {quotes.map((q) => {
          const marks = bestMarks(rfq, q.quote_id);
          return (
            <tr key={q.quote_id} data-quote={q.quote_id} data-best={marks.join(',')} class={marks.length > 0 ? 'selected' : undefined}>
              <QuoteCells q={q} />
              <td>{time(q.expires_at)}</td>
              <td>
                {marks.map((m) => (
                  <span key={m} class="badge ok">
                    {m}
                  </span>
                ))}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The signed transcript of an ended competition: every quote with its end, the accept, and whether the exchange's signature verifies. */
function Transcript({ rfqId }: { rfqId: string }) {
  const [state, setState] = useState<{ signed: SignedTranscript; problem: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void (async () => {
      try {
        const [signed, keys] = await Promise.all([rpc<SignedTranscript>('rfq.transcript', { rfq_id: rfqId }), call<{ keys: ExchangeKeyInfo[] }>('keys')]);
        setState({ signed, problem: checkTranscript(signed, keys.keys) });
      } catch (e) {
        setError(describeError(e));
      }
    })();
  }, [rfqId]);
  if (error) return <ErrorText error={`Transcript: ${error}`} />;
  if (!state) return <p class="muted">Loading the transcript…</p>;
  const { transcript } = state.signed;
  const accepted = transcript.accepted;
  return (
    <Section title="Transcript" id="transcript">
      <p data-testid="transcript-verdict" data-ok={String(state.problem === null)} class={state.problem === null ? 'ok' : 'bad'}>
        {state.problem === null ? `Signature verifies (exchange key ${state.signed.key_id})` : `Does not verify: ${state.problem}`}
      </p>
      <p data-testid="transcript-accepted">
        {accepted
          ? `Accepted ${accepted.quote_id.slice(0, 12)}… ${accepted.side} @ ${trimDecimal(accepted.price)}${accepted.best ? ' (the best price)' : ' (not the best price)'}`
          : 'No quote accepted'}
      </p>
      <table data-testid="transcript-quotes">
        <QuoteHead more={['Ended', 'End']} />
        <tbody>
          {transcript.quotes.map((q) => (
            <tr key={q.quote_id} data-quote={q.quote_id} data-end={q.end}>
              <QuoteCells q={q} />
              <td>{ms(q.ended_at_ms)}</td>
              <td>
                <span class={`badge end-${q.end}`}>{q.end}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/** One competitive RFQ of the desk's taker: its live quotes while it runs, its transcript once it has ended. */
function CompetitiveRfq({ rfqId }: { rfqId: string }) {
  const rfq = usePoll(() => rpc<RfqView>('rfq.get', { rfq_id: rfqId }), 1000, [rfqId]);
  const view = rfq.data;
  return (
    <Section title={`RFQ ${rfqId}`} id="competitive-rfq">
      <ErrorText error={rfq.error} />
      {view && (
        <>
          <p data-testid="rfq-state" data-state={view.state}>
            <span class={`badge state-${view.state}`}>{view.state}</span> {legsText(view)}, takes quotes until {time(view.expires_at)}; panel:{' '}
            {view.competition?.makers ? view.competition.makers.map(shortWallet).join(', ') : 'every quoter'}
          </p>
          {view.competition === null && <p class="muted">A seed RFQ (one quote, first wins): no competition, no transcript.</p>}
          {view.competition !== null && (competitionRunning(view) ? <LiveQuotes rfq={view} /> : <Transcript rfqId={rfqId} />)}
        </>
      )}
    </Section>
  );
}

/** The desk taker's competitive RFQs, newest first (rfq.list), and the one selected. */
export function CompetitionPage({ initial }: { initial: string | null }) {
  const desk = useDesk();
  const list = usePoll(() => (desk.who ? rpc<{ items: RfqView[] }>('rfq.list', { limit: 50 }) : Promise.resolve({ items: [] as RfqView[] })), 2000, [
    desk.who?.wallet,
  ]);
  const rows = (list.data?.items ?? []).filter((r) => r.competition !== null);
  return (
    <>
      <DeskSession desk={desk} />
      {desk.who && (
        <Section title="Competitive RFQs of the desk" id="competitive-rfqs">
          <ErrorText error={list.error} />
          <table data-testid="competitive-rfqs">
            <thead>
              <tr>
                <th scope="col">RFQ</th>
                <th scope="col">Legs</th>
                <th scope="col">State</th>
                <th scope="col">Live quotes</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.rfq_id} data-rfq={r.rfq_id} class={r.rfq_id === initial ? 'selected' : undefined}>
                  <td>
                    <a class="mono" href={`#/competition/${r.rfq_id}`}>
                      {r.rfq_id.slice(0, 12)}…
                    </a>
                  </td>
                  <td>{legsText(r)}</td>
                  <td>
                    <span class={`badge state-${r.state}`}>{r.state}</span>
                  </td>
                  <td class="num">{r.quotes?.length ?? 0}</td>
                  <td>{time(r.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}
      {desk.who && initial && <CompetitiveRfq key={initial} rfqId={initial} />}
    </>
  );
}
