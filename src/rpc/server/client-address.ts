/**
 * Who a client is, for per-client quotas: the socket's remote address, or, when that peer is one of
 * `[evm] trusted_proxies`, the address its `X-Forwarded-For` names, found as nginx's
 * `real_ip_recursive on` finds it: walking the list from the right, the first address that is not
 * itself a trusted proxy. An address is kept as 128 bits (IPv4 as IPv4-mapped IPv6), so
 * `127.0.0.1` and `::ffff:127.0.0.1` (how a dual-stack socket reports it) are one client.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** An address as four 32-bit words, most significant first. */
export type Address128 = Uint32Array;

/** The 128-bit form of an IPv4 or IPv6 address (a zone `%eth0` dropped); undefined if it is neither. */
export function parseAddress(text: string): Address128 | undefined {
  const s = text.trim();
  const zone = s.indexOf('%');
  const a = zone >= 0 ? s.slice(0, zone) : s;
  if (isIPv4(a)) {
    const out = new Uint32Array(4);
    out[2] = 0xffff;
    out[3] = ipv4Word(a);
    return out;
  }
  if (!isIPv6(a)) return undefined;
  let head = a;
  let tail = '';
  const dbl = a.indexOf('::');
  if (dbl >= 0) {
    head = a.slice(0, dbl);
    tail = a.slice(dbl + 2);
  }
  const groups = (part: string): number[] => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const w = ipv4Word(g);
        out.push(w >>> 16, w & 0xffff);
      } else out.push(parseInt(g, 16));
    }
    return out;
  };
  const h = groups(head);
  const t = groups(tail);
  const all = dbl >= 0 ? [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t] : h;
  const out = new Uint32Array(4);
  for (let i = 0; i < 4; i++) out[i] = ((all[2 * i] << 16) | all[2 * i + 1]) >>> 0;
  return out;
}

function ipv4Word(a: string): number {
  const [b0, b1, b2, b3] = a.split('.').map(Number);
  return ((b0 << 24) | (b1 << 16) | (b2 << 8) | b3) >>> 0;
}

/** An address's usual text: dotted quad for IPv4 (mapped or not), else IPv6 with the longest zero run cut. */
export function formatAddress(a: Address128): string {
  if (a[0] === 0 && a[1] === 0 && a[2] === 0xffff) {
    const w = a[3];
    return `${w >>> 24}.${(w >>> 16) & 255}.${(w >>> 8) & 255}.${w & 255}`;
  }
  const g: number[] = [];
  for (let i = 0; i < 4; i++) g.push(a[i] >>> 16, a[i] & 0xffff);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** A network: an address and how many of its leading bits count. */
export interface Cidr {
  base: Address128;
  bits: number;
}

/**
 * `1.2.3.0/24`, `fd00::/8`, or a bare address (all of its bits). An IPv4 prefix counts in the
 * IPv4-mapped space, so `10.0.0.0/8` matches `::ffff:10.1.2.3` too. Throws naming what is wrong.
 */
export function parseCidr(text: string): Cidr {
  const slash = text.indexOf('/');
  const addr = slash >= 0 ? text.slice(0, slash) : text;
  const base = parseAddress(addr);
  if (!base) throw new Error(`${JSON.stringify(text)} is not an IP address or CIDR network`);
  const v4 = isIPv4(addr.trim());
  const max = v4 ? 32 : 128;
  let bits = max;
  if (slash >= 0) {
    const n = text.slice(slash + 1).trim();
    if (!/^\d{1,3}$/.test(n) || Number(n) > max)
      throw new Error(`${JSON.stringify(text)}: the prefix length must be 0 to ${max}`);
    bits = Number(n);
  }
  return { base, bits: v4 ? 96 + bits : bits };
}

export function inCidr(a: Address128, c: Cidr): boolean {
  let left = c.bits;
  for (let i = 0; i < 4 && left > 0; i++) {
    const take = Math.min(32, left);
    const mask = take === 32 ? 0xffffffff : ~(0xffffffff >>> take) >>> 0;
    if (((a[i] ^ c.base[i]) & mask) >>> 0 !== 0) return false;
    left -= take;
  }
  return true;
}

const LOOPBACK = [parseCidr('127.0.0.0/8'), parseCidr('::1/128')];

export function isLoopback(a: Address128): boolean {
  return LOOPBACK.some((c) => inCidr(a, c));
}

export class TrustedProxies {
  private readonly nets: readonly Cidr[];

  /** `cidrs`: `[evm] trusted_proxies`; throws naming the first one that is not a network. */
  constructor(cidrs: readonly string[]) {
    this.nets = cidrs.map(parseCidr);
  }

  trusts(a: Address128): boolean {
    return this.nets.some((c) => inCidr(a, c));
  }

  /**
   * The client of a request from `peer` carrying `forwardedFor` (the X-Forwarded-For value, several
   * headers joined by commas): the peer itself unless it is trusted; else the right-most address of
   * the chain that is not trusted (the left-most one when all are). An entry that is not an address
   * ends the walk: the hop to its right (the last trusted one) is the client, as nginx does.
   */
  client(peer: string | undefined, forwardedFor: string | undefined): Address128 | undefined {
    const direct = peer === undefined ? undefined : parseAddress(peer);
    if (!direct || this.nets.length === 0 || !forwardedFor || !this.trusts(direct)) return direct;
    const hops = forwardedFor.split(',');
    let client = direct;
    for (let i = hops.length - 1; i >= 0; i--) {
      const a = parseAddress(hops[i]);
      if (!a) break;
      client = a;
      if (!this.trusts(a)) break;
    }
    return client;
  }
}
