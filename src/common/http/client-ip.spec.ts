import { clientIp } from './client-ip';

/** A socket with this remote address. */
const from = (remoteAddress: string) => ({ remoteAddress });

describe('clientIp (design.md section 10)', () => {
  it('ignores X-Forwarded-For without a trusted proxy', () => {
    expect(clientIp('1.2.3.4', from('127.0.0.1'), 0)).toBe('127.0.0.1');
  });

  it('takes the address the trusted proxy appended, whatever the client wrote in front', () => {
    expect(clientIp('10.0.0.9, 198.51.100.7', from('127.0.0.1'), 1)).toBe('198.51.100.7');
    expect(clientIp('spoofed, 10.0.0.9, 198.51.100.7', from('127.0.0.1'), 1)).toBe('198.51.100.7');
    expect(clientIp('198.51.100.7', from('127.0.0.1'), 1)).toBe('198.51.100.7');
    expect(clientIp(['a, 198.51.100.7', '203.0.113.5'], from('127.0.0.1'), 1)).toBe('203.0.113.5');
  });

  it('counts N hops from the right, the leftmost when the list is shorter', () => {
    expect(clientIp('1.1.1.1, 2.2.2.2, 3.3.3.3', from('127.0.0.1'), 2)).toBe('2.2.2.2');
    expect(clientIp('2.2.2.2', from('127.0.0.1'), 5)).toBe('2.2.2.2');
    expect(clientIp(undefined, from('127.0.0.1'), 1)).toBe('127.0.0.1');
    expect(clientIp(' , ', from('127.0.0.1'), 1)).toBe('127.0.0.1');
  });

  it('keys IPv6 on the /64 and IPv4-mapped addresses as IPv4', () => {
    expect(clientIp('2001:db8:1:2:aaaa::1', from('::1'), 1)).toBe('2001:db8:1:2::/64');
    expect(clientIp('2001:db8:1:2:bbbb:cccc:dddd:eeee', from('::1'), 1)).toBe('2001:db8:1:2::/64');
    expect(clientIp('2001:0db8:0001:0002::9', from('::1'), 1)).toBe('2001:db8:1:2::/64');
    expect(clientIp(undefined, from('::ffff:192.0.2.1'), 0)).toBe('192.0.2.1');
    expect(clientIp(undefined, from('::1'), 0)).toBe('0:0:0:0::/64');
  });

  it('reads only the end of a huge header', () => {
    expect(clientIp(`${'x,'.repeat(100_000)}198.51.100.7`, from('127.0.0.1'), 1)).toBe('198.51.100.7');
  });

  it("reads the socket's address only when it is the answer (reading it keeps an object on a net.Socket)", () => {
    let reads = 0;
    const socket = {
      get remoteAddress() {
        reads += 1;
        return '127.0.0.1';
      },
    };
    expect(clientIp('10.0.0.9, 198.51.100.7', socket, 1)).toBe('198.51.100.7');
    expect(clientIp('2.2.2.2', socket, 5)).toBe('2.2.2.2');
    expect(reads).toBe(0);
    expect(clientIp(' , ', socket, 1)).toBe('127.0.0.1');
    expect(clientIp('1.2.3.4', socket, 0)).toBe('127.0.0.1');
    expect(clientIp(undefined, socket, 1)).toBe('127.0.0.1');
    expect(reads).toBe(3);
    expect(clientIp(undefined, {}, 1)).toBe('unknown');
  });
});
