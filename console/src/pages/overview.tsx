import { call } from '../api';
import { Chart } from '../chart';
import { ErrorText, Section, usePoll } from '../ui';

interface Health {
  status: string;
  database: string;
  redis: string;
}
interface Overview {
  queues: Record<string, number>;
  rfqs_by_state: Record<string, number>;
  fills_per_minute: Array<{ minute: number; fills: number }>;
}

const good = (state: string) => state === 'up' || state === 'embedded' || state === 'in-process';

/** The exchange's, PostgreSQL's and Redis's state as `/health` says it. */
function HealthSection({ health }: { health: { data: Health | null; error: string | null } }) {
  return (
    <Section title="Health" id="health">
      <ErrorText error={health.error} />
      {health.data && (
        <dl class="stats" data-testid="health">
          <div>
            <dt>Exchange</dt>
            <dd class={health.data.status === 'ok' ? 'ok' : 'bad'}>{health.data.status}</dd>
          </div>
          <div>
            <dt>PostgreSQL</dt>
            <dd class={good(health.data.database) ? 'ok' : 'bad'}>{health.data.database}</dd>
          </div>
          <div>
            <dt>Redis</dt>
            <dd class={good(health.data.redis) ? 'ok' : 'bad'}>{health.data.redis}</dd>
          </div>
        </dl>
      )}
    </Section>
  );
}

/** The job queues' depths and the RFQs counted by state. */
function QueuesAndStates({ o }: { o: Overview }) {
  return (
    <div class="grid">
      <Section title="Queues" id="queues">
        <table>
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Jobs waiting, delayed or active</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(o.queues).map(([name, depth]) => (
              <tr key={name}>
                <td>{name}</td>
                <td class="num">{depth}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="RFQs by state" id="states">
        <p class="muted">Open: all. Ended: created in the last 24 hours.</p>
        <table data-testid="rfq-states">
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">RFQs</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(o.rfqs_by_state).map(([state, n]) => (
              <tr key={state} data-state={state}>
                <td>{state}</td>
                <td class="num">{n}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </div>
  );
}

/** Health, queues, RFQs by state and fills per minute, refreshed every 2 s. */
export function OverviewPage() {
  const health = usePoll(() => call<Health>('health', { bearer: null }), 2000);
  const overview = usePoll(() => call<Overview>('overview'), 2000);
  const o = overview.data;
  const fills = o?.fills_per_minute ?? [];
  return (
    <>
      <HealthSection health={health} />
      <ErrorText error={overview.error} />
      {o && <QueuesAndStates o={o} />}
      {o && (
        <Section title="Fills per minute (last 30 minutes)" id="fills">
          <p class="muted" data-testid="fills-total">
            {fills.reduce((sum, p) => sum + p.fills, 0)} fills in the window
          </p>
          <Chart
            label="Fills per minute over the last 30 minutes"
            x={fills.map((p) => p.minute)}
            y={fills.map((p) => p.fills)}
            yLabel="fills"
            time
            kind="bars"
          />
        </Section>
      )}
    </>
  );
}
