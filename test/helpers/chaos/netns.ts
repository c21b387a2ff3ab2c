/**
 * A private network for a chaos run: one network namespace per node, each joined to a bridge in the
 * root namespace by a veth pair, so each node has its own address and a partition can cut it off
 * from some peers while the harness (on the bridge's address) still reaches every node. A partition
 * is a set of blackhole routes: node A cannot send to B (nor B to A) once each holds a /32 blackhole
 * route to the other, which is more specific than the bridge's subnet route; healing deletes them.
 *
 * Needs root (CAP_NET_ADMIN) and `ip` (iproute2). `available()` says whether this machine can.
 */
import { spawnSync } from 'node:child_process';

/** Runs `ip` with `args`, throwing with its stderr on failure. */
function ip(args: string[]): void {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim() || r.error?.message}`);
}

export class NetnsLab {
  /** Address of the harness, on the bridge. */
  readonly hostAddress: string;
  readonly addresses: string[];
  readonly namespaces: string[];
  private readonly bridge: string;
  private readonly veths: string[];
  /** Pairs `a<b` currently cut. */
  private readonly cut = new Set<string>();
  private torn = false;

  private constructor(id: string, subnet: string, count: number) {
    this.bridge = `chb${id}`;
    this.hostAddress = `${subnet}.1`;
    this.addresses = Array.from({ length: count }, (_, i) => `${subnet}.${i + 2}`);
    this.namespaces = Array.from({ length: count }, (_, i) => `chaos${id}n${i}`);
    this.veths = Array.from({ length: count }, (_, i) => `ch${id}v${i}`);
  }

  /** Why this machine cannot build a lab, or undefined when it can. */
  static unavailable(): string | undefined {
    if (process.getuid?.() !== 0) return 'not root: network namespaces need CAP_NET_ADMIN';
    const r = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
    if (r.status !== 0) return `ip netns does not work here: ${r.stderr?.trim() || r.error?.message}`;
    return undefined;
  }

  /** Builds the bridge, the namespaces and their links; `count` ≤ 200 nodes. */
  static create(count: number): NetnsLab {
    // a short random id keeps interface names under 15 characters and runs apart from each other
    const id = Math.random().toString(36).slice(2, 7);
    const subnet = `10.${100 + Math.floor(Math.random() * 150)}.${Math.floor(Math.random() * 250)}`;
    const lab = new NetnsLab(id, subnet, count);
    try {
      lab.build();
    } catch (err) {
      lab.teardown();
      throw err;
    }
    return lab;
  }

  private build(): void {
    ip(['link', 'add', this.bridge, 'type', 'bridge']);
    ip(['addr', 'add', `${this.hostAddress}/24`, 'dev', this.bridge]);
    ip(['link', 'set', this.bridge, 'up']);
    for (let i = 0; i < this.addresses.length; i++) {
      const ns = this.namespaces[i];
      const host = this.veths[i];
      const inner = `${host}p`;
      ip(['netns', 'add', ns]);
      ip(['link', 'add', host, 'type', 'veth', 'peer', 'name', inner]);
      ip(['link', 'set', inner, 'netns', ns]);
      ip(['link', 'set', host, 'master', this.bridge]);
      ip(['link', 'set', host, 'up']);
      ip(['-n', ns, 'link', 'set', 'lo', 'up']);
      ip(['-n', ns, 'addr', 'add', `${this.addresses[i]}/24`, 'dev', inner]);
      ip(['-n', ns, 'link', 'set', inner, 'up']);
    }
  }

  /** The command prefix that runs a program inside node `i`'s namespace. */
  prefix(i: number): string[] {
    return ['ip', 'netns', 'exec', this.namespaces[i]];
  }

  private key(a: number, b: number): string {
    return a < b ? `${a}-${b}` : `${b}-${a}`;
  }

  /** Cuts every link between `group` and the other nodes (not the harness's). */
  partition(group: number[]): void {
    const inside = new Set(group);
    for (const a of group)
      for (let b = 0; b < this.addresses.length; b++) {
        if (inside.has(b) || this.cut.has(this.key(a, b))) continue;
        ip(['-n', this.namespaces[a], 'route', 'add', 'blackhole', `${this.addresses[b]}/32`]);
        ip(['-n', this.namespaces[b], 'route', 'add', 'blackhole', `${this.addresses[a]}/32`]);
        this.cut.add(this.key(a, b));
      }
  }

  /** Restores every cut link. */
  heal(): void {
    for (const k of this.cut) {
      const [a, b] = k.split('-').map(Number);
      ip(['-n', this.namespaces[a], 'route', 'del', 'blackhole', `${this.addresses[b]}/32`]);
      ip(['-n', this.namespaces[b], 'route', 'del', 'blackhole', `${this.addresses[a]}/32`]);
    }
    this.cut.clear();
  }

  /** Removes the namespaces (their veth ends go with them) and the bridge; safe to call twice. */
  teardown(): void {
    if (this.torn) return;
    this.torn = true;
    for (const ns of this.namespaces) spawnSync('ip', ['netns', 'del', ns]);
    for (const v of this.veths) spawnSync('ip', ['link', 'del', v]);
    spawnSync('ip', ['link', 'del', this.bridge]);
  }
}
