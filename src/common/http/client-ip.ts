/**
 * The client's address: the first address of X-Forwarded-For behind a trusted load balancer
 * (TRUST_PROXY=true), otherwise the socket's own address (the header is ignored).
 */
export function clientIp(forwardedFor: string | string[] | undefined, socketAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy && forwardedFor) {
    const first = (Array.isArray(forwardedFor) ? forwardedFor[0] : forwardedFor).split(',')[0]?.trim();
    if (first) return first;
  }
  return socketAddress ?? 'unknown';
}
