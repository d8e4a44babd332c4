import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../api';
import { type DirectoryMaker, type MakerProfile, type MakerStats, profileChange, shortWallet } from '../competition';
import { rpc } from '../rpc';
import { ErrorText, Section, formValues, usePoll } from '../ui';
import { DeskSession, useDesk } from './desk';

const median = (value: number | null) => (value === null ? '—' : `${value} ms`);

/** The makers directory for a taker (rfq.makers): the wallets to name in a panel, with their last 7 days. */
function Directory() {
  const directory = usePoll(() => rpc<{ makers: DirectoryMaker[] }>('rfq.makers', {}), 10_000);
  return (
    <Section title="Makers directory (last 7 days)" id="directory">
      <ErrorText error={directory.error} />
      <table data-testid="makers-directory">
        <thead>
          <tr>
            <th scope="col">Wallet</th>
            <th scope="col">Name</th>
            <th scope="col">RFQs</th>
            <th scope="col">Quoted</th>
            <th scope="col">Median response</th>
            <th scope="col">Cancelled</th>
            <th scope="col">Replaced</th>
            <th scope="col">Won</th>
          </tr>
        </thead>
        <tbody>
          {(directory.data?.makers ?? []).map((m) => (
            <tr key={m.wallet} data-wallet={m.wallet}>
              <td class="mono" title={m.wallet}>
                {shortWallet(m.wallet)}
              </td>
              <td>{m.name ?? '—'}</td>
              <td class="num">{m.stats.rfqs}</td>
              <td class="num">{m.stats.quoted}</td>
              <td class="num">{median(m.stats.median_response_ms)}</td>
              <td class="num">{m.stats.cancelled}</td>
              <td class="num">{m.stats.replaced}</td>
              <td class="num">{m.stats.won}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function StatsList({ stats }: { stats: MakerStats }) {
  const items: Array<[string, string | number]> = [
    ['RFQs that reached you', stats.rfqs],
    ['Quoted', stats.quoted],
    ['Median response', median(stats.median_response_ms)],
    ['Cancelled', stats.cancelled],
    ['Replaced', stats.replaced],
    ['Won', stats.won],
  ];
  return (
    <dl class="stats" data-testid="maker-stats">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd class="num">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A maker's own last 7 days (rfq.maker.stats) and its profile (rfq.maker.set_profile: listed, name). */
function OwnMaker() {
  const stats = usePoll(() => rpc<MakerStats>('rfq.maker.stats', {}), 10_000);
  const [profile, setProfile] = useState<MakerProfile | null>(null);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  useEffect(() => {
    // set_profile with no field changes nothing and answers the whole profile: the only read there is.
    rpc<MakerProfile>('rfq.maker.set_profile', {}).then(setProfile, (e) => setMessage({ text: describeError(e), error: true }));
  }, []);
  const save = async (event: Event) => {
    const values = formValues(event);
    const change = profileChange(profile, values.listed === 'on', values.name ?? '');
    if (Object.keys(change).length === 0) return setMessage({ text: 'Nothing changed', error: false });
    try {
      setProfile(await rpc<MakerProfile>('rfq.maker.set_profile', change));
      setMessage({ text: 'Profile saved', error: false });
    } catch (e) {
      setMessage({ text: `Profile not saved (${describeError(e)})`, error: true });
    }
  };
  return (
    <Section title="Your maker profile and last 7 days" id="own-maker">
      <ErrorText error={stats.error} />
      {stats.data && <StatsList stats={stats.data} />}
      {profile && (
        <form aria-label="Maker profile" onSubmit={(event) => void save(event)} data-testid="maker-profile" data-listed={String(profile.listed)}>
          <label>
            <input name="listed" type="checkbox" defaultChecked={profile.listed} /> Listed in the directory
          </label>{' '}
          <label>
            Name <input name="name" defaultValue={profile.name ?? ''} maxLength={40} pattern="[\x20-\x7e]{1,40}" />
          </label>{' '}
          <button type="submit">Save profile</button>
        </form>
      )}
      {message && (
        <p class={message.error ? 'error' : 'notice'} role="status" data-testid="profile-message">
          {message.text}
        </p>
      )}
    </Section>
  );
}

/** Takers see the directory; makers their own stats and profile; an account with both roles, both. */
export function MakersPage() {
  const desk = useDesk();
  const roles = desk.who?.roles ?? [];
  return (
    <>
      <DeskSession desk={desk} />
      {desk.who && roles.includes('taker') && <Directory />}
      {desk.who && roles.includes('quoter') && <OwnMaker />}
      {desk.who && !roles.includes('taker') && !roles.includes('quoter') && <p class="muted">The desk account has neither the taker nor the quoter role.</p>}
    </>
  );
}
