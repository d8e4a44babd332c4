import { useState } from 'preact/hooks';
import { call } from '../api';
import { trimDecimal } from '../money';
import { ErrorText, type PendingAction, Section, formValues, time, usePoll } from '../ui';

interface Instrument {
  symbol: string;
  asset: string;
  strike: string;
  kind: 'call' | 'put';
  expiry: number;
  paused: boolean;
  settled: boolean;
  settlement_price: string | null;
}
interface MarketAge {
  asset: string;
  index_price: string;
  updated_at: string;
  age_seconds: number;
  stale: boolean;
}

interface Expiration {
  asset: string;
  expiry: number;
  strikes: Map<string, { call?: Instrument; put?: Instrument }>;
  paused: boolean;
  settled: boolean;
}

/** asset → expiration → strike, from the instrument list. A round shows paused when any of its instruments is. */
function group(instruments: Instrument[]): Map<string, Expiration[]> {
  const byAsset = new Map<string, Map<number, Expiration>>();
  for (const i of instruments) {
    const expirations = byAsset.get(i.asset) ?? new Map<number, Expiration>();
    byAsset.set(i.asset, expirations);
    const round = expirations.get(i.expiry) ?? {
      asset: i.asset,
      expiry: i.expiry,
      strikes: new Map<string, { call?: Instrument; put?: Instrument }>(),
      paused: false,
      settled: true,
    };
    expirations.set(i.expiry, round);
    const strike = round.strikes.get(i.strike) ?? {};
    strike[i.kind] = i;
    round.strikes.set(i.strike, strike);
    round.paused ||= i.paused;
    round.settled &&= i.settled;
  }
  return new Map([...byAsset].map(([asset, expirations]) => [asset, [...expirations.values()].sort((a, b) => a.expiry - b.expiry)]));
}

const roundId = (r: { asset: string; expiry: number }) => `${r.asset}-${r.expiry}`;

type Notify = (m: string, error?: boolean) => void;

/** The confirmation of a pause, resume or settle of one round. */
function roundAction(round: Expiration, kind: 'pause' | 'resume' | 'settle', done: () => void): PendingAction {
  return {
    title: `${kind[0].toUpperCase()}${kind.slice(1)} ${round.asset} ${time(round.expiry)}`,
    detail:
      kind === 'pause'
        ? 'No RFQ can be created, quoted or accepted on this round until it is resumed.'
        : kind === 'resume'
          ? 'Trading on this round starts again.'
          : 'Settles every position of the round at the index price now. This cannot be undone.',
    confirmLabel: kind === 'settle' ? 'Settle now' : kind === 'pause' ? 'Pause round' : 'Resume round',
    run: async () => {
      await call(kind, { body: { asset: round.asset, expiration: round.expiry } });
      done();
    },
  };
}

async function postMarketData(event: Event, notify: Notify, done: () => void): Promise<void> {
  const v = formValues(event);
  try {
    const body: Record<string, string> = { asset: v.asset.trim(), index_price: v.index_price.trim() };
    if (v.iv.trim()) body.iv = v.iv.trim();
    await call('postMarketData', { body });
    notify(`Market data of ${body.asset} posted`);
    done();
  } catch (e) {
    notify(`Market data: ${(e as Error).message}`, true);
  }
}

async function listInstruments(event: Event, notify: Notify, done: () => void): Promise<void> {
  const v = formValues(event);
  try {
    // 08:00 UTC of the chosen date: the exchange's expiry time (docs/spec/design.md section 2).
    const expiration = Date.parse(`${v.date}T08:00:00Z`) / 1000;
    const body: Record<string, unknown> = { asset: v.asset.trim(), expiration, spot_price: v.spot.trim() };
    const strikes = v.strikes.split(/[\s,]+/).filter(Boolean);
    if (strikes.length > 0) body.strikes = strikes;
    const result = await call<{ created: number }>('createInstruments', { body });
    notify(`Listed ${result.created} instruments of ${String(body.asset)}`);
    done();
  } catch (e) {
    notify(`List instruments: ${(e as Error).message}`, true);
  }
}

/** Each asset's index price and its age, and the form that posts market data. */
function MarketDataSection({
  market,
  onPost,
}: {
  market: { data: { max_age_seconds: number; assets: MarketAge[] } | null; error: string | null };
  onPost: (e: Event) => void;
}) {
  return (
    <Section title="Market data" id="market">
      <ErrorText error={market.error} />
      <table data-testid="market-data">
        <thead>
          <tr>
            <th scope="col">Asset</th>
            <th scope="col">Index price</th>
            <th scope="col">Updated</th>
            <th scope="col">Age</th>
          </tr>
        </thead>
        <tbody>
          {(market.data?.assets ?? []).map((a) => (
            <tr key={a.asset} data-asset={a.asset}>
              <td>{a.asset}</td>
              <td class="num">{trimDecimal(a.index_price)}</td>
              <td>{a.updated_at}</td>
              <td class={a.stale ? 'bad' : 'ok'} data-testid={`age-${a.asset}`} data-age={a.age_seconds}>
                {a.age_seconds} s{a.stale ? ' (stale)' : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">Stale past {market.data?.max_age_seconds ?? '…'} s: rfq.create refuses the asset.</p>
      <form class="inline" onSubmit={onPost} aria-label="Post market data">
        <label>
          Asset <input name="asset" required pattern="[A-Z][A-Z0-9]{1,7}" size={6} />
        </label>
        <label>
          Index price <input name="index_price" required inputMode="decimal" size={10} />
        </label>
        <label>
          Flat IV <input name="iv" inputMode="decimal" size={6} placeholder="0.8" />
        </label>
        <button type="submit">Post market data</button>
      </form>
    </Section>
  );
}

/** A round's strikes, each with its call and put. */
function StrikesTable({ round }: { round: Expiration }) {
  return (
    <table class="strikes">
      <thead>
        <tr>
          <th scope="col">Strike</th>
          <th scope="col">Call</th>
          <th scope="col">Put</th>
        </tr>
      </thead>
      <tbody>
        {[...round.strikes].map(([strike, pair]) => (
          <tr key={strike}>
            <td class="num">{trimDecimal(strike)}</td>
            {(['call', 'put'] as const).map((kind) => (
              <td key={kind}>{pair[kind] ? `${pair[kind].symbol}${pair[kind].paused ? ' (paused)' : ''}` : '—'}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One round: its state, its actions, and its strikes when opened. */
function RoundItem(props: { round: Expiration; open: boolean; onToggle: () => void; stale: boolean; onAction: (kind: 'pause' | 'resume' | 'settle') => void }) {
  const { round, open, onToggle, stale, onAction } = props;
  return (
    <li data-round={roundId(round)}>
      <div class="row">
        <button class="link" aria-expanded={open} onClick={onToggle}>
          {time(round.expiry)} · {round.strikes.size} strikes
        </button>
        <span class={`badge ${round.settled ? 'muted' : round.paused ? 'bad' : 'ok'}`} data-testid={`state-${roundId(round)}`}>
          {round.settled ? 'settled' : round.paused ? 'paused' : 'trading'}
        </span>
        {stale && <span class="badge bad">market data stale</span>}
        {!round.settled && (
          <>
            {round.paused ? <button onClick={() => onAction('resume')}>Resume</button> : <button onClick={() => onAction('pause')}>Pause</button>}
            <button class="danger" onClick={() => onAction('settle')}>
              Settle
            </button>
          </>
        )}
      </div>
      {open && <StrikesTable round={round} />}
    </li>
  );
}

/** The form that lists a round's instruments. */
function ListInstrumentsSection({ onList }: { onList: (e: Event) => void }) {
  return (
    <Section title="List instruments" id="list">
      <form class="inline" onSubmit={onList} aria-label="List instruments">
        <label>
          Asset <input name="asset" required pattern="[A-Z][A-Z0-9]{1,7}" size={6} />
        </label>
        <label>
          Expiry date <input name="date" type="date" required />
        </label>
        <label>
          Spot price <input name="spot" required inputMode="decimal" size={8} />
        </label>
        <label>
          Strikes (optional) <input name="strikes" size={20} placeholder="140, 150, 160" />
        </label>
        <button type="submit">List instruments</button>
      </form>
    </Section>
  );
}

/** Rounds with their paused flags and market-data age; pause, resume, settle, market data, listing. */
export function RoundsPage({ confirm, notify }: { confirm: (a: PendingAction) => void; notify: Notify }) {
  const instruments = usePoll(() => call<{ instruments: Instrument[] }>('instruments', { query: { include_settled: 'true' } }), 2000);
  const market = usePoll(() => call<{ max_age_seconds: number; assets: MarketAge[] }>('marketDataAges'), 1000);
  const [open, setOpen] = useState<string | null>(null);
  const rounds = group(instruments.data?.instruments ?? []);
  const ages = new Map((market.data?.assets ?? []).map((a) => [a.asset, a]));

  return (
    <>
      <MarketDataSection market={market} onPost={(e) => void postMarketData(e, notify, market.reload)} />
      <Section title="Rounds" id="rounds">
        <ErrorText error={instruments.error} />
        {[...rounds].map(([asset, expirations]) => (
          <div key={asset} class="asset">
            <h3>{asset}</h3>
            <ul class="rounds">
              {expirations.map((round) => (
                <RoundItem
                  key={round.expiry}
                  round={round}
                  open={open === roundId(round)}
                  onToggle={() => setOpen(open === roundId(round) ? null : roundId(round))}
                  stale={ages.get(asset)?.stale ?? false}
                  onAction={(kind) => confirm(roundAction(round, kind, instruments.reload))}
                />
              ))}
            </ul>
          </div>
        ))}
      </Section>
      <ListInstrumentsSection onList={(e) => void listInstruments(e, notify, instruments.reload)} />
    </>
  );
}
