/**
 * True when an error says a dependency (PostgreSQL, Redis) is out of reach rather than that the
 * request was wrong: HTTP answers 503 (docs/spec/design.md section 8), JSON-RPC a retryable error.
 */
export function isDependencyDown(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '08000', '08003', '08006'].includes(code)) return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return /Connection is closed|Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Stream isn't writeable|enableOfflineQueue/i.test(
    error.message,
  );
}
