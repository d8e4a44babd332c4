// Replaying clients in their own process (the e2e process is also the server: clients inside it
// would measure their own parsing, not the server's). argv[2]: a JSON list of jobs
// { url, ip, token, since, latest }. Every job connects and resumes its session first; then all
// send `rfq.subscribe { since }` at once. A job refused with RFQ_RATE_LIMITED waits its
// retry_after_ms and subscribes again. Each job checks that the replayed events are exactly
// since+1..latest, in order, before the subscribe's answer. Prints one JSON line:
// { results: [{ refused, retryAfterMs: [..], replayed, inOrder, latest, error }] }.
const WebSocket = require('ws');
const jobs = JSON.parse(process.argv[2]);

function open(job) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(job.url, { headers: { 'x-forwarded-for': job.ip } });
    const pending = new Map();
    let nextId = 1;
    const state = { socket, seqs: [], call: null };
    socket.on('message', (data) => {
      const text = data.toString();
      // A replayed event: read its account_seq without parsing the frame (cheap, like a client that only counts).
      if (text.startsWith('{"jsonrpc":"2.0","method":"subscription"')) {
        const m = /"account_seq":(\d+)/.exec(text);
        if (m) state.seqs.push(Number(m[1]));
        return;
      }
      const reply = JSON.parse(text);
      pending.get(reply.id)?.(reply);
      pending.delete(reply.id);
    });
    state.call = (method, params) =>
      new Promise((done) => {
        const id = nextId++;
        pending.set(id, done);
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    socket.once('open', () => resolve(state));
    socket.once('error', reject);
  });
}

async function replay(state, job) {
  const result = { refused: 0, retryAfterMs: [], replayed: 0, inOrder: false, latest: null, error: null };
  for (;;) {
    state.seqs.length = 0;
    const reply = await state.call('rfq.subscribe', { since: job.since });
    if (reply.error && reply.error.data && reply.error.data.error === 'RFQ_RATE_LIMITED') {
      result.refused += 1;
      result.retryAfterMs.push(reply.error.data.retry_after_ms);
      await new Promise((r) => setTimeout(r, reply.error.data.retry_after_ms));
      continue;
    }
    if (reply.error) {
      result.error = reply.error.data ? reply.error.data.error : reply.error.message;
      return result;
    }
    result.latest = reply.result.account_seq;
    result.replayed = state.seqs.length;
    result.inOrder = state.seqs.length === job.latest - job.since && state.seqs.every((s, i) => s === job.since + 1 + i);
    return result;
  }
}

(async () => {
  const states = await Promise.all(jobs.map(open));
  await Promise.all(
    states.map(async (s, i) => {
      const r = await s.call('public/session_resume', { session_token: jobs[i].token });
      if (r.error) throw new Error(`resume: ${JSON.stringify(r.error)}`);
    }),
  );
  const results = await Promise.all(states.map((s, i) => replay(s, jobs[i])));
  for (const s of states) s.socket.close();
  process.stdout.write(JSON.stringify({ results }) + '\n');
  process.exit(0);
})().catch((error) => {
  process.stdout.write(JSON.stringify({ fatal: String(error) }) + '\n');
  process.exit(1);
});
