import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/reveal/routes.js';

const request = (remoteAddress: string, forwarded?: string) =>
  ({
    socket: { remoteAddress },
    headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
  }) as unknown as IncomingMessage;

describe('the client address the reveal limit counts', () => {
  it.each([
    ['the socket, without trusted proxies', request('203.0.113.7', '198.51.100.1'), 0, '203.0.113.7'],
    ['an IPv4-mapped socket address', request('::ffff:203.0.113.7'), 0, '203.0.113.7'],
    ['behind one proxy: the last hop', request('10.0.0.2', '1.2.3.4, 198.51.100.1'), 1, '198.51.100.1'],
    [
      'behind a CDN and a load balancer: the hop the CDN saw',
      request('10.0.0.2', '1.2.3.4, 198.51.100.1, 192.0.2.9'),
      2,
      '198.51.100.1',
    ],
    ['fewer hops than proxies: the first one', request('10.0.0.2', '198.51.100.1'), 2, '198.51.100.1'],
    ['IPv6 per /64', request('2001:db8:aa:bb:1:2:3:4'), 0, '2001:db8:aa:bb::/64'],
    ['IPv6 shortened, same /64', request('2001:db8:aa:bb::99'), 0, '2001:db8:aa:bb::/64'],
    ['IPv6 with a short prefix', request('2001:db8::1'), 0, '2001:db8:0:0::/64'],
  ])('%s', (_name, req, proxies, expected) => {
    expect(clientAddress(req, proxies)).toBe(expected);
  });
});
