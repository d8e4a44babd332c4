import { isIPv6 } from 'node:net';

/**
 * The client's address (docs/spec/design.md section 10): the X-Forwarded-For entries, left to right, then
 * the socket's address; with `trustedHops` = N proxies in front, the entry N places left of the
 * socket address, i.e. the address the outermost trusted proxy appended (the leftmost entry when
 * the list is shorter). Entries further left are the client's own writing and never read: a
 * client cannot pick the key of its own rate limits. With no trusted proxy the header is ignored.
 */
export function clientIp(forwardedFor: string | string[] | undefined, socket: { readonly remoteAddress?: string }, trustedHops: number): string {
  if (trustedHops <= 0 || !forwardedFor) return socketAddress(socket);
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  // Bounded: a header of thousands of entries costs no more than its last few.
  const entries = header.length > 8192 ? header.slice(-8192).split(',').slice(1) : header.split(',');
  const list: string[] = [];
  for (const entry of entries) {
    const text = entry.trim();
    if (text) list.push(text);
  }
  // The socket's address would be the list's last entry: with one trusted hop or more it is the
  // answer only when the header has no entry.
  if (list.length === 0) return socketAddress(socket);
  return normalize(list[Math.max(0, list.length - trustedHops)]);
}

/**
 * Read only when it is the answer: net.Socket's remoteAddress keeps a `_peername` object on the
 * socket (about 90 bytes for as long as a WebSocket stays open, F3-heap).
 */
function socketAddress(socket: { readonly remoteAddress?: string }): string {
  return normalize(socket.remoteAddress ?? 'unknown');
}

/** IPv4-mapped IPv6 as IPv4; other IPv6 addresses by their /64 (one subscriber's allocation). */
function normalize(address: string): string {
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!isIPv6(bare)) return address;
  return `${ipv6Prefix64(bare)}::/64`;
}

/** The first four groups of an IPv6 address, expanded (`2001:db8:0:1`). */
function ipv6Prefix64(address: string): string {
  const zone = address.indexOf('%');
  const text = zone >= 0 ? address.slice(0, zone) : address;
  const [head, tail = ''] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = text.includes('::') && tail ? tail.split(':') : [];
  // An embedded IPv4 tail is two groups; it never reaches the first four here unless the address is short.
  const groups = text.includes('::')
    ? [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups]
    : headGroups;
  return groups
    .slice(0, 4)
    .map((g) => (g.includes('.') ? '0' : (parseInt(g, 16) || 0).toString(16)))
    .join(':');
}
