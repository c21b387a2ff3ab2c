/**
 * A local network of real chaind processes on 127.0.0.1, made by the real `chaind testnet` command:
 * each node is `chaind start --home <dir>` (which runs its own cometbft child), reached over its EVM
 * JSON-RPC and its consensus RPC like any operator or client would.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { installedBinaryPath } from '../../src/cometbft/binary.ts';
import type { TestnetManifest, TestnetNode } from '../../src/cli/testnet.ts';
import { toBech32 } from '../../src/crypto/accounts.ts';
import { BASE_DENOM, BECH32_ACCOUNT_PREFIX } from '../../src/primitives/identity.ts';
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers';
import { ChaindProcess, runChaind, tempHome } from './chaind.ts';
import { artifacts } from './dev-chain.ts';
import { DEV_ACCOUNTS } from './node.ts';

/** Fast blocks for tests: consensus steps stay well above what loopback needs. */
export const FAST_NETWORK_FLAGS = [
  '--consensus.timeout-commit',
  '150ms',
  '--consensus.timeout-propose',
  '600ms',
];

/**
 * Skips a network test where CometBFT cannot be built (no Go: `npm run install:cometbft` says so),
 * but fails it in CI, which always installs it.
 */
export function cometbftOrSkip(t: { skip(msg: string): void }): boolean {
  if (existsSync(installedBinaryPath())) return true;
  if (process.env.CI)
    throw new Error(`CometBFT is not installed at ${installedBinaryPath()}: run npm run install:cometbft`);
  t.skip('CometBFT is not installed (npm run install:cometbft needs Go)');
  return false;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A base port whose 10 × nodes ports are free now. */
/**
 * A block of 100 free ports (ten per node) for one test network, claimed for this test process: below
 * the kernel's ephemeral range (32768 and up), where the outgoing connections of every test (and
 * CometBFT's dials) take their source ports, so a port found free cannot be taken by one before
 * its node binds it; and claimed by a file created exclusively, so two test files running at once
 * never pick the same block. The claim is released when the test's hooks run (a claim older than
 * an hour is from a run that died and is taken over).
 */
export async function claimPortBlock(t: { after(fn: () => void): void }, nodes: number): Promise<number> {
  if (nodes > 10) throw new Error(`a test network of ${nodes} nodes needs more than a block of 100 ports`);
  const claims = join(tmpdir(), 'chaind-test-ports');
  mkdirSync(claims, { recursive: true });
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = 10_000 + 100 * Math.floor(Math.random() * 225);
    const claim = join(claims, String(base));
    try {
      if (Date.now() - statSync(claim).mtimeMs > 3_600_000) rmSync(claim, { force: true });
    } catch {
      // no claim yet
    }
    try {
      closeSync(openSync(claim, 'wx'));
    } catch {
      continue; // another test process holds it
    }
    let ok = true;
    for (let p = base; p < base + 10 * nodes && ok; p++) ok = await portFree(p);
    if (ok) {
      t.after(() => rmSync(claim, { force: true }));
      return base;
    }
    rmSync(claim, { force: true });
  }
  throw new Error('no free block of ports');
}

/** The homes of a network, made by the real `chaind testnet`, and its manifest. */
export function makeTestnet(
  dir: string,
  validators: number,
  rpcNodes: number,
  basePort: number,
): TestnetManifest {
  const r = runChaind([
    'testnet',
    '--validators',
    String(validators),
    '--rpc-nodes',
    String(rpcNodes),
    '--output',
    dir,
    '--base-port',
    String(basePort),
  ]);
  if (r.code !== 0) throw new Error(`chaind testnet failed: ${r.stderr}`);
  return JSON.parse(readFileSync(join(dir, 'testnet.json'), 'utf8')) as TestnetManifest;
}

export interface RpcAnswer {
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

export class TestNetwork {
  readonly dir: string;
  readonly manifest: TestnetManifest;
  readonly processes = new Map<string, ChaindProcess>();
  private readonly extraFlags: string[];

  private constructor(dir: string, manifest: TestnetManifest, extraFlags: string[]) {
    this.dir = dir;
    this.manifest = manifest;
    this.extraFlags = extraFlags;
  }

  static async create(
    t: { after(fn: () => void | Promise<void>): void },
    o: { validators: number; rpcNodes: number; flags?: string[] },
  ): Promise<TestNetwork> {
    const dir = tempHome(t, 'chaind-net-');
    const base = await claimPortBlock(t, o.validators + o.rpcNodes);
    const manifest = makeTestnet(dir, o.validators, o.rpcNodes, base);
    const net = new TestNetwork(dir, manifest, o.flags ?? FAST_NETWORK_FLAGS);
    // after hooks run in registration order: tempHome's removal (registered first) stops whatever
    // still runs from these homes before deleting them; this stops the rest
    t.after(() => net.stopAll());
    return net;
  }

  /**
   * Adds `count` funded accounts (1 uchain each, addresses derived from a counter) to every node's
   * genesis before any node starts: a chain whose state is as large as a test needs, without txs.
   */
  fundGenesisAccounts(count: number): Uint8Array[] {
    const addresses: Uint8Array[] = [];
    const balances = [];
    for (let i = 0; i < count; i++) {
      const addr = createHash('sha256').update(`genesis account ${i}`).digest().subarray(0, 20);
      addresses.push(addr);
      balances.push({
        address: toBech32(BECH32_ACCOUNT_PREFIX, addr),
        coins: [{ denom: BASE_DENOM, amount: '1' }],
      });
    }
    for (const n of this.manifest.nodes) {
      const path = join(n.home, 'config', 'genesis.json');
      const g = JSON.parse(readFileSync(path, 'utf8'));
      g.app_state.bank.balances = g.app_state.bank.balances.concat(balances);
      const supply = g.app_state.bank.supply.find((c: { denom: string }) => c.denom === BASE_DENOM);
      supply.amount = String(BigInt(supply.amount) + BigInt(count));
      writeFileSync(path, JSON.stringify(g, null, 2));
    }
    return addresses;
  }

  node(name: string): TestnetNode {
    const n = this.manifest.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no node ${name}`);
    return n;
  }

  get names(): string[] {
    return this.manifest.nodes.map((n) => n.name);
  }

  start(name: string, extra: string[] = []): ChaindProcess {
    const n = this.node(name);
    const p = new ChaindProcess(
      ['start', '--home', n.home, '--log_format', 'json', ...this.extraFlags, ...extra],
      {},
      { configuredPorts: true },
    );
    this.processes.set(name, p);
    return p;
  }

  startAll(extra: string[] = []): void {
    for (const n of this.manifest.nodes) this.start(n.name, extra);
  }

  async stop(name: string, signal: NodeJS.Signals = 'SIGTERM') {
    const p = this.processes.get(name);
    this.processes.delete(name);
    return p?.stop(signal);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((n) => this.stop(n)));
  }

  evmUrl(name: string): string {
    return `http://127.0.0.1:${this.node(name).ports.evm_http}`;
  }

  rpcUrl(name: string): string {
    return `http://127.0.0.1:${this.node(name).ports.rpc}`;
  }

  async evm(name: string, method: string, params: unknown[] = []): Promise<RpcAnswer> {
    const res = await fetch(this.evmUrl(name), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    return (await res.json()) as RpcAnswer;
  }

  /** GET on the consensus RPC: HTTP status and parsed body. */
  async consensus(name: string, path: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.rpcUrl(name)}${path}`, { signal: AbortSignal.timeout(10_000) });
    return { status: res.status, body: await res.json() };
  }

  /** The node's latest height over eth_blockNumber; -1 while it does not answer. */
  async height(name: string): Promise<number> {
    try {
      const r = await this.evm(name, 'eth_blockNumber');
      return r.result ? Number(r.result) : -1;
    } catch {
      return -1;
    }
  }

  async waitHeight(name: string, h: number, ms = 60_000): Promise<number> {
    const deadline = Date.now() + ms;
    for (;;) {
      const now = await this.height(name);
      if (now >= h) return now;
      if (Date.now() > deadline)
        throw new Error(`${name} did not reach height ${h} within ${ms} ms (at ${now})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Block hash and state root of `height` on `name`. */
  async blockId(name: string, height: number): Promise<{ hash: string; stateRoot: string }> {
    const r = await this.evm(name, 'eth_getBlockByNumber', ['0x' + height.toString(16), false]);
    if (!r.result) throw new Error(`${name} has no block ${height}: ${JSON.stringify(r)}`);
    return { hash: r.result.hash, stateRoot: r.result.stateRoot };
  }
}

/**
 * A TestToken (ERC20) deployed by dev account 0 through the EVM JSON-RPC at `evmUrl`, its whole
 * supply with the deployer: what the network tests put into state before a snapshot. The caller
 * destroys `provider` after its tests.
 */
export async function deployTestToken(evmUrl: string, name: string, symbol: string, supply: bigint) {
  const provider = new JsonRpcProvider(evmUrl, undefined, { staticNetwork: true, pollingInterval: 100 });
  const owner = new Wallet('0x' + Buffer.from(DEV_ACCOUNTS[0].privateKey).toString('hex'), provider);
  const deployed = await new ContractFactory(
    artifacts.TestToken.abi,
    artifacts.TestToken.bytecode,
    owner,
  ).deploy(name, symbol, supply);
  await deployed.waitForDeployment();
  const address = await deployed.getAddress();
  return { provider, owner, address, token: new Contract(address, artifacts.TestToken.abi, owner) };
}
