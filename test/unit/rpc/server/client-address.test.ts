/** Addresses, CIDR networks and the X-Forwarded-For walk of trusted proxies (nginx's real_ip_recursive). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatAddress,
  inCidr,
  isLoopback,
  parseAddress,
  parseCidr,
  TrustedProxies,
} from '../../../../src/rpc/server/client-address.ts';

const a = (s: string) => parseAddress(s)!;

test('IPv4, IPv4-mapped and IPv6 addresses parse to 128 bits and format back', () => {
  assert.deepEqual(a('127.0.0.1'), a('::ffff:127.0.0.1'));
  assert.equal(formatAddress(a('::ffff:10.1.2.3')), '10.1.2.3');
  assert.equal(formatAddress(a('2001:db8:0:0:0:0:0:1')), '2001:db8::1');
  assert.equal(formatAddress(a('::1')), '::1');
  assert.equal(formatAddress(a('fe80::1%eth0')), 'fe80::1');
  assert.equal(formatAddress(a('1:2:3:4:5:6:7:8')), '1:2:3:4:5:6:7:8');
  assert.equal(parseAddress('not an ip'), undefined);
  assert.equal(parseAddress('1.2.3.4:80'), undefined);
});

test('CIDR matching: IPv4 prefixes in the mapped space, IPv6 prefixes, bare addresses', () => {
  assert.ok(inCidr(a('10.9.8.7'), parseCidr('10.0.0.0/8')));
  assert.ok(inCidr(a('::ffff:10.9.8.7'), parseCidr('10.0.0.0/8')));
  assert.ok(!inCidr(a('11.0.0.1'), parseCidr('10.0.0.0/8')));
  assert.ok(inCidr(a('192.168.1.200'), parseCidr('192.168.1.128/25')));
  assert.ok(!inCidr(a('192.168.1.127'), parseCidr('192.168.1.128/25')));
  assert.ok(inCidr(a('fd12:3456::1'), parseCidr('fd00::/8')));
  assert.ok(!inCidr(a('fe12::1'), parseCidr('fd00::/8')));
  assert.ok(inCidr(a('2001:db8::5'), parseCidr('2001:db8::/33')));
  assert.ok(!inCidr(a('2001:db8:8000::5'), parseCidr('2001:db8::/33')));
  assert.ok(inCidr(a('203.0.113.9'), parseCidr('203.0.113.9')));
  assert.ok(!inCidr(a('203.0.113.8'), parseCidr('203.0.113.9')));
  assert.ok(inCidr(a('1.2.3.4'), parseCidr('0.0.0.0/0')));
  assert.ok(inCidr(a('::'), parseCidr('::/0')));
  assert.throws(() => parseCidr('10.0.0.0/33'), /prefix length must be 0 to 32/);
  assert.throws(() => parseCidr('example.com/8'), /not an IP address or CIDR network/);
  assert.ok(isLoopback(a('127.3.4.5')) && isLoopback(a('::1')) && !isLoopback(a('10.0.0.1')));
});

test('X-Forwarded-For: honoured from a trusted peer (right-most untrusted hop), ignored from others', () => {
  const p = new TrustedProxies(['10.0.0.0/8', 'fd00::/8']);
  const client = (peer: string, xff?: string) => formatAddress(p.client(peer, xff)!);
  // an untrusted peer: its own address, whatever it claims
  assert.equal(client('203.0.113.7', '198.51.100.1'), '203.0.113.7');
  // a trusted peer without the header
  assert.equal(client('10.0.0.2'), '10.0.0.2');
  // the client appended by the proxy
  assert.equal(client('10.0.0.2', '198.51.100.1'), '198.51.100.1');
  // a spoofed left part is skipped: the right-most untrusted one counts
  assert.equal(client('10.0.0.2', '1.1.1.1, 198.51.100.1'), '198.51.100.1');
  // a chain of trusted proxies is walked through
  assert.equal(client('10.0.0.2', '198.51.100.1, 10.0.0.3, fd00::7'), '198.51.100.1');
  // all trusted: the left-most
  assert.equal(client('10.0.0.2', '10.1.1.1, 10.0.0.3'), '10.1.1.1');
  // garbage ends the walk at the last trusted hop
  assert.equal(client('10.0.0.2', '198.51.100.1, garbage, 10.0.0.3'), '10.0.0.3');
  // IPv6 clients and dual-stack peers
  assert.equal(client('::ffff:10.0.0.2', '2001:db8::9'), '2001:db8::9');
  // no proxies configured: never honoured
  assert.equal(formatAddress(new TrustedProxies([]).client('10.0.0.2', '198.51.100.1')!), '10.0.0.2');
  assert.throws(() => new TrustedProxies(['10.0.0.0/8', 'nope']), /"nope" is not an IP address/);
});
