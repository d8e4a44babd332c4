// One client connected to a fresh fake server per test file, and the respond params the desk
// tests send: the setup desk.test.ts, reconcile.test.ts and competition.test.ts share.
import { after, before } from 'node:test';
import { LegworkClient } from '../src/index';
import { type Call, FakeServer } from './fake-server';

export const fast = { reconnect: false, heartbeatMs: 0, requestTimeoutMs: 2000 } as const;

export const RESPOND = {
  rfq_id: 'c'.repeat(32),
  quote_nonce: '7',
  bid: '1.5',
  ask: '2.25',
  issued_at: 1_795_000_000,
  expires_at: 1_795_000_060,
  maker_signature: 'c2ln',
};

export interface Desk {
  readonly server: FakeServer;
  readonly client: LegworkClient;
  /** The last request the server received. */
  readonly lastCall: () => Call;
}

/** Starts the server and connects the client before the file's tests; closes both after. */
export function deskOnFakeServer(): Desk {
  let server: FakeServer | undefined;
  let client: LegworkClient | undefined;
  before(async () => {
    server = await FakeServer.start();
    client = await LegworkClient.connect(server.url, fast);
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });
  return {
    get server() {
      return server!;
    },
    get client() {
      return client!;
    },
    lastCall: () => server!.calls[server!.calls.length - 1],
  };
}
