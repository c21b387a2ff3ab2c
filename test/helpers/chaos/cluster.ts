/**
 * The nodes of a chaos run: the homes `chaind testnet` makes (validators and RPC nodes), each node a
 * real `chaind start` (with its CometBFT child) in its own process group, so a kill or a pause hits
 * the node and its consensus engine together, as a power cut or a frozen VM does. With a `NetnsLab`
 * each node lives in its own network namespace at its own address; without one, all share
 * 127.0.0.1 and partitions are not possible.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  cpSync,
  createWriteStream,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestnetManifest, TestnetNode } from '../../../src/cli/testnet.ts';
import { CHAIND } from '../chaind.ts';
import { runChaindAsync } from '../chaind-async.ts';
import { makeTestnet } from '../network.ts';
import type { NetnsLab } from './netns.ts';

const FORWARDER = resolve(import.meta.dirname, 'forward.ts');

export interface ChaosNode {
  readonly name: string;
  readonly index: number;
  readonly role: 'validator' | 'rpc';
  readonly home: string;
  /** The node's address: its namespace's, or 127.0.0.1. */
  readonly address: string;
  readonly ports: TestnetNode['ports'];
  child?: ChildProcess;
  paused: boolean;
  /** Started, not yet exited. */
  running: boolean;
  /** The last lines it printed, for a failure's message. */
  tail: string[];
  /** Called with each line it prints, and with undefined when it exits. */
  watchers: Set<(line: string | undefined) => void>;
}

export class ChaosCluster {
  readonly nodes: ChaosNode[];
  readonly dir: string;
  private readonly lab: NetnsLab | undefined;
  private readonly flags: string[];
  private readonly forwarders: ChildProcess[] = [];
  private readonly logs = new Map<string, WriteStream>();
  /** Every exit seen, for the report: a node exiting on its own is an event the run must explain. */
  readonly exits: {
    name: string;
    code: number | null;
    signal: string | null;
    expected: boolean;
    at: number;
  }[] = [];
  private readonly expectingExit = new Set<string>();

  private constructor(dir: string, manifest: TestnetManifest, lab: NetnsLab | undefined, flags: string[]) {
    this.dir = dir;
    this.lab = lab;
    this.flags = flags;
    this.nodes = manifest.nodes.map((n, index) => ({
      name: n.name,
      index,
      role: n.role,
      home: n.home,
      address: lab ? lab.addresses[index] : '127.0.0.1',
      ports: n.ports,
      paused: false,
      running: false,
      tail: [],
      watchers: new Set(),
    }));
  }

  /**
   * Writes the homes into `dir` (ports from `basePort`) and, with a lab, rewrites every listen and
   * peer address of each node's config to its namespace's address.
   */
  static create(o: {
    dir: string;
    validators: number;
    rpcNodes: number;
    basePort: number;
    lab?: NetnsLab;
    flags: string[];
    /** Edits each node's app.toml text before start (snapshot settings, …). */
    appToml?: (node: TestnetNode, text: string) => string;
  }): ChaosCluster {
    const manifest = makeTestnet(o.dir, o.validators, o.rpcNodes, o.basePort);
    const owner = (port: number) => Math.floor((port - o.basePort) / 10);
    for (const n of manifest.nodes) {
      for (const file of ['config.toml', 'app.toml']) {
        const path = join(n.home, 'config', file);
        let text = readFileSync(path, 'utf8');
        if (o.lab) {
          const lab = o.lab;
          text = text.replace(
            /127\.0\.0\.1:(\d+)/g,
            (_, port) => `${lab.addresses[owner(Number(port))]}:${port}`,
          );
        }
        if (file === 'app.toml' && o.appToml) text = o.appToml(n, text);
        writeFileSync(path, text);
      }
      // the data directory as `chaind testnet` made it: what a node state-syncing from scratch starts from
      cpSync(join(n.home, 'data'), join(n.home, 'data.initial'), { recursive: true });
    }
    return new ChaosCluster(o.dir, manifest, o.lab, o.flags);
  }

  node(name: string): ChaosNode {
    const n = this.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no node ${name}`);
    return n;
  }

  get validators(): ChaosNode[] {
    return this.nodes.filter((n) => n.role === 'validator');
  }

  get rpcNodes(): ChaosNode[] {
    return this.nodes.filter((n) => n.role === 'rpc');
  }

  evmUrl(n: ChaosNode): string {
    return `http://${n.address}:${n.ports.evm_http}`;
  }

  wsUrl(n: ChaosNode): string {
    return `ws://${n.address}:${n.ports.evm_ws}`;
  }

  rpcUrl(n: ChaosNode): string {
    return `http://${n.address}:${n.ports.rpc}`;
  }

  metricsUrl(n: ChaosNode): string {
    return `http://${n.address}:${n.ports.metrics}/metrics`;
  }

  restUrl(n: ChaosNode): string {
    return `http://${n.address}:${n.ports.rest}`;
  }

  /** Starts the EVM JSON-RPC forwarders of every namespace (none without a lab). */
  async startForwarders(): Promise<void> {
    if (!this.lab) return;
    await Promise.all(
      this.nodes.map(
        (n) =>
          new Promise<void>((ok, fail) => {
            const child = spawn(
              this.lab!.prefix(n.index)[0],
              [
                ...this.lab!.prefix(n.index).slice(1),
                process.execPath,
                FORWARDER,
                n.address,
                String(n.ports.evm_http),
                String(n.ports.evm_ws),
              ],
              { stdio: ['ignore', 'pipe', 'pipe'] },
            );
            this.forwarders.push(child);
            let seen = 0;
            createInterface({ input: child.stdout! }).on('line', () => ++seen === 2 && ok());
            child.once('exit', (code) => fail(new Error(`the forwarder of ${n.name} exited (${code})`)));
          }),
      ),
    );
  }

  private log(n: ChaosNode): WriteStream {
    let s = this.logs.get(n.name);
    if (!s) {
      s = createWriteStream(join(this.dir, `${n.name}.log`), { flags: 'a' });
      this.logs.set(n.name, s);
    }
    return s;
  }

  /** Starts `name` (its own process group: a kill or pause reaches its CometBFT child too), with `extra` flags. */
  start(name: string, extra: string[] = []): void {
    const n = this.node(name);
    if (n.running) throw new Error(`${name} is already running`);
    const argv = [
      process.execPath,
      CHAIND,
      'start',
      '--home',
      n.home,
      '--log_format',
      'json',
      ...this.flags,
      ...extra,
    ];
    const full = this.lab ? [...this.lab.prefix(n.index), ...argv] : argv;
    const child = spawn(full[0], full.slice(1), { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    n.child = child;
    n.running = true;
    n.paused = false;
    const log = this.log(n);
    const keep = (line: string) => {
      log.write(line + '\n');
      n.tail.push(line);
      if (n.tail.length > 200) n.tail.splice(0, n.tail.length - 200);
      for (const w of n.watchers) w(line);
    };
    createInterface({ input: child.stdout! }).on('line', keep);
    createInterface({ input: child.stderr! }).on('line', keep);
    child.once('close', (code, signal) => {
      if (n.child !== child) return;
      n.running = false;
      n.paused = false;
      const expected = this.expectingExit.delete(name);
      this.exits.push({ name, code, signal, expected, at: Date.now() });
      keep(`[chaos] ${name} exited: code ${code} signal ${signal}${expected ? '' : ' (unexpected)'}`);
      for (const w of n.watchers) w(undefined);
    });
  }

  private async waitExit(n: ChaosNode, ms: number): Promise<void> {
    const child = n.child;
    if (!child || !n.running) return;
    await new Promise<void>((ok) => {
      const timer = setTimeout(() => {
        this.signalGroup(n, 'SIGKILL');
        ok();
      }, ms);
      child.once('close', () => {
        clearTimeout(timer);
        ok();
      });
    });
  }

  private signalGroup(n: ChaosNode, signal: NodeJS.Signals): void {
    if (!n.child?.pid) return;
    try {
      process.kill(-n.child.pid, signal);
    } catch {
      // already gone
    }
  }

  /** SIGKILL of the node and its CometBFT child at once. */
  async kill(name: string): Promise<void> {
    const n = this.node(name);
    this.expectingExit.add(name);
    this.signalGroup(n, 'SIGKILL');
    await this.waitExit(n, 30_000);
  }

  /** SIGTERM (the node stops its CometBFT child), SIGKILL after `ms`. */
  async stop(name: string, ms = 30_000): Promise<void> {
    const n = this.node(name);
    if (!n.running) return;
    this.expectingExit.add(name);
    if (n.paused) this.signalGroup(n, 'SIGCONT');
    n.child!.kill('SIGTERM');
    await this.waitExit(n, ms);
  }

  pause(name: string): void {
    const n = this.node(name);
    this.signalGroup(n, 'SIGSTOP');
    n.paused = true;
  }

  resume(name: string): void {
    const n = this.node(name);
    this.signalGroup(n, 'SIGCONT');
    n.paused = false;
  }

  partition(names: string[]): void {
    if (!this.lab) throw new Error('partitions need network namespaces');
    this.lab.partition(names.map((x) => this.node(x).index));
  }

  heal(): void {
    this.lab?.heal();
  }

  get canPartition(): boolean {
    return this.lab !== undefined;
  }

  /** Puts a stopped node's data directory back as `chaind testnet` made it (no block, no state). */
  wipe(name: string): void {
    const n = this.node(name);
    if (n.running) throw new Error(`${name} must be stopped to be wiped`);
    // emptied in place: the directory may be a small disk's mount (a link to it)
    const data = realpathSync(join(n.home, 'data'));
    for (const entry of readdirSync(data)) rmSync(join(data, entry), { recursive: true, force: true });
    cpSync(join(n.home, 'data.initial'), data, { recursive: true });
  }

  /** Marks the next exit of `name` as one the run provoked (or, `expected` false, no longer). */
  expectExit(name: string, expected = true): void {
    if (expected) this.expectingExit.add(name);
    else this.expectingExit.delete(name);
  }

  /** Resolves with the first line of `name` (from now on) matching `pred`, or undefined after `ms`. */
  waitForLine(name: string, pred: (line: string) => boolean, ms: number): Promise<string | undefined> {
    const n = this.node(name);
    return new Promise((resolve) => {
      if (!n.running) return resolve(undefined);
      const timer = setTimeout(() => done(undefined), ms);
      const watch = (line: string | undefined) => (line === undefined || pred(line)) && done(line);
      const done = (line: string | undefined) => {
        clearTimeout(timer);
        n.watchers.delete(watch);
        resolve(line);
      };
      n.watchers.add(watch);
    });
  }

  /**
   * `chaind rollback -n blocks` on a stopped node, run without blocking this process: the observer,
   * the load and the forwarders live here and must go on while a CLI starts on a loaded machine.
   */
  async rollback(name: string, blocks = 1): Promise<string> {
    const n = this.node(name);
    if (n.running) throw new Error(`${name} must be stopped to roll back`);
    const r = await runChaindAsync(['rollback', '--home', n.home, '-n', String(blocks)]);
    if (r.code !== 0) throw new Error(`chaind rollback on ${name} failed: ${r.stderr || r.stdout}`);
    return r.stdout.trim();
  }

  /**
   * Kills every node group and forwarder at once, synchronously: for a process that exits before
   * `shutdown` (an interrupted run), so nothing it started outlives it.
   */
  killAll(): void {
    for (const n of this.nodes) if (n.running) this.signalGroup(n, 'SIGKILL');
    for (const f of this.forwarders) f.kill('SIGKILL');
  }

  /** Stops every node and forwarder. */
  async shutdown(): Promise<void> {
    await Promise.all(this.nodes.filter((n) => n.running).map((n) => this.stop(n.name, 15_000)));
    for (const f of this.forwarders) f.kill('SIGKILL');
    for (const s of this.logs.values()) s.end();
  }
}
