/**
 * A network whose nodes run blocks on different EVMs: `chaind testnet --validators 4 --rpc-nodes 1`,
 * each node's `[evm] block_engine` set in its app.toml (validator0 and validator2 on revm, validator1,
 * validator3 and rpc0 on ethereumjs). Both engines must produce the same blocks, so a workload of
 * what they could disagree on (deployments, ERC20 transfers, fresh senders, reverts, out of gas,
 * CREATE2 and self-destruct, transient storage, the three tx types) runs through blocks proposed by
 * both kinds of validator, and every node must commit the same block and app hash at every height
 * and answer the same receipts; a revm validator killed mid-chain replays and rejoins on them.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  Interface,
  Wallet,
  getAddress,
  getCreateAddress,
  id,
  parseEther,
  type TransactionRequest,
} from 'ethers';
import { installedBinaryPath } from '../../src/cometbft/binary.ts';
import { nativeSimulator } from '../../src/execution/simulation/native-binding.ts';
import type { ChaindProcess } from '../helpers/chaind.ts';
import { artifacts } from '../helpers/dev-chain.ts';
import { cometbftOrSkip, TestNetwork } from '../helpers/network.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';

type Engine = 'revm' | 'ethereumjs';
const ENGINES: Record<string, Engine> = {
  validator0: 'revm',
  validator1: 'ethereumjs',
  validator2: 'revm',
  validator3: 'ethereumjs',
  rpc0: 'ethereumjs',
};
const NODES = Object.keys(ENGINES);
const VALIDATORS = NODES.filter((n) => n.startsWith('validator'));
/** How long a node may take to get somewhere: generous, for a machine loaded by other work. */
const DEADLINE = 90_000;

// the environment outranks app.toml: an inherited CHAIND_EVM_BLOCK_ENGINE would give every node one engine
delete process.env.CHAIND_EVM_BLOCK_ENGINE;
const native = nativeSimulator();
const net: TestNetwork | undefined =
  existsSync(installedBinaryPath()) && typeof native !== 'string'
    ? await TestNetwork.create({ after }, { validators: 4, rpcNodes: 1 })
    : undefined;
/** Every process each node ran, in order: their logs together are the node's log. */
const runs = new Map<string, ChaindProcess[]>(NODES.map((n) => [n, []]));
if (net) {
  for (const [name, engine] of Object.entries(ENGINES)) {
    const path = join(net.node(name).home, 'config', 'app.toml');
    const toml = readFileSync(path, 'utf8');
    assert.match(toml, /^block_engine = "auto"$/m);
    writeFileSync(path, toml.replace(/^block_engine = "auto"$/m, `block_engine = "${engine}"`));
  }
  for (const name of NODES) runs.get(name)!.push(net.start(name));
}

function readyOrSkip(t: { skip(msg: string): void }): boolean {
  if (!cometbftOrSkip(t)) return false;
  if (typeof native === 'string') {
    t.skip(`a mixed network needs the revm addon, which is ${native}`);
    return false;
  }
  return true;
}

const json = (line: string) => JSON.parse(line) as Record<string, any>;
const hexKey = (k: Uint8Array) => '0x' + Buffer.from(k).toString('hex');
const dev = (i: number) => new Wallet(hexKey(DEV_ACCOUNTS[i].privateKey));
const fresh = (tag: string) => new Wallet(id(`mixed engines ${tag}`));

/**
 * What each node's own log says it committed: height → block hash and the app hash after it (a
 * block replayed from its own block store at start is logged without its hash).
 */
function committed(name: string): Map<number, { hash?: string; appHash: string }> {
  const out = new Map<number, { hash?: string; appHash: string }>();
  for (const p of runs.get(name)!)
    for (const l of p.lines)
      if (l.includes('"msg":"committed block"') || l.includes('"msg":"replayed block"')) {
        const r = json(l);
        out.set(r.height, { hash: r.hash, appHash: r.app_hash });
      }
  return out;
}

/** A node's lines that name an app-hash disagreement, for the message of a failure. */
function appHashLines(): string {
  const lines = NODES.flatMap((n) =>
    runs
      .get(n)!
      .flatMap((p) => p.lines)
      .filter((l) => /AppHash|app hash|app_hash mismatch/i.test(l) && !l.includes('committed block'))
      .slice(-3)
      .map((l) => `${n}: ${l}`),
  );
  return lines.length ? `\napp-hash lines:\n${lines.join('\n')}` : '';
}

async function waitHeight(name: string, h: number): Promise<void> {
  try {
    await net!.waitHeight(name, h, DEADLINE);
  } catch (err) {
    throw new Error(`${(err as Error).message}${appHashLines()}`);
  }
}

/** One node's view of height h: CometBFT's block ID, the header's app hash and its proposer. */
async function cometBlock(name: string, h: number) {
  const r = await net!.consensus(name, `/block?height=${h}`);
  assert.equal(r.status, 200, `${name} /block?height=${h}: ${JSON.stringify(r.body)}`);
  const { block_id, block } = r.body.result;
  return { hash: block_id.hash, appHash: block.header.app_hash, proposer: block.header.proposer_address };
}

/**
 * Every node of `names` has the same block at every height in [from, to] (CometBFT's /block, and
 * the EVM RPC's hash and state root), and logged the same block hash and app hash for it; the app
 * hash each logged after h is the one block h + 1 carries.
 */
async function assertSameChain(names: string[], from: number, to: number): Promise<void> {
  const logs = new Map(names.map((n) => [n, committed(n)]));
  for (let h = from; h <= to; h++) {
    const ref = await cometBlock(names[0], h);
    const evmRef = await net!.blockId(names[0], h);
    assert.equal(evmRef.hash, '0x' + ref.hash.toLowerCase(), `${names[0]} at ${h}: EVM and CometBFT hash`);
    assert.equal(evmRef.stateRoot, '0x' + ref.appHash.toLowerCase(), `${names[0]} at ${h}: state root`);
    const next = h < to ? await cometBlock(names[0], h + 1) : undefined;
    for (const n of names) {
      if (n !== names[0]) {
        assert.deepEqual(await cometBlock(n, h), ref, `${n} (${ENGINES[n]}) at height ${h}`);
        assert.deepEqual(await net!.blockId(n, h), evmRef, `${n} (${ENGINES[n]}) EVM block ${h}`);
      }
      const own = logs.get(n)!.get(h);
      // (the top height may be served a moment before its line is written)
      assert.ok(own || h === to, `${n} logged no commit of height ${h}`);
      if (!own) continue;
      if (own.hash) assert.equal(own.hash, ref.hash, `${n} (${ENGINES[n]}) logged another block at ${h}`);
      if (next)
        assert.equal(own.appHash, next.appHash, `${n} (${ENGINES[n]}) computed another app hash after ${h}`);
    }
  }
}

const validatorAddress = new Map<string, string>();
function proposerName(address: string): string {
  if (validatorAddress.size === 0)
    for (const v of VALIDATORS) {
      const key = json(readFileSync(join(net!.node(v).home, 'config', 'priv_validator_key.json'), 'utf8'));
      validatorAddress.set(key.address.toUpperCase(), v);
    }
  const name = validatorAddress.get(address.toUpperCase());
  assert.ok(name, `proposer ${address} is none of the validators`);
  return name;
}

interface Sent {
  hash: string;
  label: string;
  status: 0 | 1;
}

const FEES_1559: TransactionRequest = { type: 2, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n };
const FEES_2930: TransactionRequest = { type: 1, gasPrice: 10n ** 11n, accessList: [] };
const FEES_LEGACY: TransactionRequest = { type: 0, gasPrice: 10n ** 11n };

const nonces = new Map<string, number>();
let chainId = 0n;
/** Signs `tx` with `from`'s next nonce and sends it to `via`'s EVM JSON-RPC. */
async function send(
  via: string,
  from: Wallet,
  label: string,
  status: 0 | 1,
  tx: TransactionRequest,
): Promise<Sent> {
  if (chainId === 0n) chainId = BigInt((await net!.evm(via, 'eth_chainId')).result);
  let nonce = nonces.get(from.address);
  if (nonce === undefined)
    nonce = Number((await net!.evm(via, 'eth_getTransactionCount', [from.address, 'pending'])).result);
  nonces.set(from.address, nonce + 1);
  const raw = await from.signTransaction({ gasLimit: 300_000n, ...tx, nonce, chainId });
  const r = await net!.evm(via, 'eth_sendRawTransaction', [raw]);
  assert.ok(r.result, `${label} sent to ${via}: ${JSON.stringify(r.error)}`);
  return { hash: r.result, label, status };
}

async function receipt(via: string, hash: string): Promise<any> {
  const deadline = Date.now() + DEADLINE;
  for (;;) {
    const r = await net!.evm(via, 'eth_getTransactionReceipt', [hash]);
    if (r.result) return r.result;
    if (Date.now() > deadline) throw new Error(`no receipt of ${hash} on ${via}${appHashLines()}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Waits for the wave's receipts on `via` and checks each tx ended as its sender meant. */
async function included(via: string, wave: Sent[]): Promise<any[]> {
  const receipts = await Promise.all(wave.map((s) => receipt(via, s.hash)));
  receipts.forEach((r, i) =>
    assert.equal(Number(r.status), wave[i].status, `${wave[i].label}: ${JSON.stringify(r)}`),
  );
  return receipts;
}

const deploy = (name: string, args: unknown[] = []) => {
  const art = artifacts[name];
  return art.bytecode + new Interface(art.abi).encodeDeploy(args).slice(2);
};
const calldata = (name: string, fn: string, args: unknown[] = []) =>
  new Interface(artifacts[name].abi).encodeFunctionData(fn, args);

/** Every tx of the workload, checked on every node at the end. */
const workload: Sent[] = [];

test('each node logs the block engine its app.toml names', async (t) => {
  if (!readyOrSkip(t)) return;
  for (const name of NODES) {
    const line = json(
      await runs.get(name)![0].waitForLine((l) => l.includes('"msg":"block execution engine"'), DEADLINE),
    );
    assert.equal(line.engine, ENGINES[name], `${name}: ${JSON.stringify(line)}`);
    if (ENGINES[name] === 'ethereumjs') {
      assert.equal(line.reason, '[evm] block_engine = "ethereumjs"');
      assert.match(line.revm, /npm run build:native-sim/);
    }
  }
});

test('a varied workload through blocks proposed by revm and ethereumjs validators: the same blocks, app hashes and receipts on all five nodes', async (t) => {
  if (!readyOrSkip(t)) return;
  for (const n of NODES) await waitHeight(n, 1);
  const [freshA, freshB, freshC] = [fresh('a'), fresh('b'), fresh('c')];

  // wave 1, through the ethereumjs RPC node: deployments (1559, legacy, 2930) and fresh accounts funded
  const wave1 = [
    await send('rpc0', dev(0), 'TestToken deploy (1559)', 1, {
      ...FEES_1559,
      gasLimit: 3_000_000n,
      data: deploy('TestToken', ['Mixed', 'MIX', parseEther('1000000')]),
    }),
    await send('rpc0', dev(1), 'ReplayCallee deploy (legacy)', 1, {
      ...FEES_LEGACY,
      gasLimit: 1_000_000n,
      data: deploy('ReplayCallee'),
    }),
    await send('rpc0', dev(4), 'TraceTarget deploy (2930)', 1, {
      ...FEES_2930,
      gasLimit: 1_000_000n,
      data: deploy('TraceTarget'),
    }),
    await send('rpc0', dev(5), 'TransientProbe deploy (1559)', 1, {
      ...FEES_1559,
      gasLimit: 1_000_000n,
      data: deploy('TransientProbe'),
    }),
    await send('rpc0', dev(2), 'fund fresh A (1559)', 1, {
      ...FEES_1559,
      to: freshA.address,
      value: parseEther('1'),
    }),
    await send('rpc0', dev(3), 'fund fresh B (legacy)', 1, {
      ...FEES_LEGACY,
      to: freshB.address,
      value: parseEther('1'),
    }),
  ];
  const r1 = await included('rpc0', wave1);
  workload.push(...wave1);
  const [token, callee, target, transient] = r1.map((r) => r.contractAddress as string);

  // wave 2, through a revm and an ethereumjs validator: contracts over contracts, ERC20 transfers,
  // fresh senders' first txs (one of them reverting)
  const wave2 = [
    await send('validator0', dev(1), 'ReplayCaller deploy', 1, {
      ...FEES_1559,
      gasLimit: 1_500_000n,
      data: deploy('ReplayCaller', [callee]),
    }),
    await send('validator0', dev(4), 'TraceProbe deploy (legacy)', 1, {
      ...FEES_LEGACY,
      gasLimit: 2_000_000n,
      data: deploy('TraceProbe', [target]),
    }),
    await send('validator1', dev(0), 'ERC20 transfer (1559)', 1, {
      ...FEES_1559,
      to: token,
      data: calldata('TestToken', 'transfer', [getAddress(hexKey(DEV_ACCOUNTS[5].evmAddress)), 1000n]),
    }),
    await send('validator1', dev(0), 'ERC20 transfer to fresh A (legacy)', 1, {
      ...FEES_LEGACY,
      to: token,
      data: calldata('TestToken', 'transfer', [freshA.address, 500n]),
    }),
    await send('validator1', freshA, 'fresh A first tx: value to fresh C', 1, {
      ...FEES_1559,
      gasLimit: 21_000n,
      to: freshC.address,
      value: parseEther('0.1'),
    }),
    await send('validator0', freshB, 'fresh B first tx: ERC20 transfer it cannot pay, reverts', 0, {
      ...FEES_LEGACY,
      gasLimit: 100_000n,
      to: token,
      data: calldata('TestToken', 'transfer', [getAddress(hexKey(DEV_ACCOUNTS[6].evmAddress)), 1n]),
    }),
    await send('validator0', dev(5), 'transient storage', 1, {
      ...FEES_1559,
      to: transient,
      data: calldata('TransientProbe', 'storeAndLoad', [42n]),
    }),
  ];
  const r2 = await included('validator1', wave2);
  workload.push(...wave2);
  const [caller, probe] = r2.map((r) => r.contractAddress as string);

  // wave 3, through the other two validators: nested calls, reverts, out of gas, CREATE, CREATE2 and
  // self-destruct in one tx
  const wave3 = [
    await send('validator2', dev(1), 'nested calls with a caught revert', 1, {
      ...FEES_1559,
      to: caller,
      data: calldata('ReplayCaller', 'nested', [7n]),
    }),
    await send('validator2', dev(1), 'a call that reverts', 0, {
      ...FEES_1559,
      to: caller,
      data: calldata('ReplayCaller', 'mustFail'),
    }),
    await send('validator2', dev(1), 'CREATE2 and self-destruct in one tx', 1, {
      ...FEES_LEGACY,
      to: caller,
      value: 12_345n,
      data: calldata('ReplayCaller', 'spawnAndDestroy', [id('salt 1')]),
    }),
    await send('validator2', dev(1), 'out of gas', 0, {
      ...FEES_1559,
      gasLimit: 150_000n,
      to: caller,
      data: calldata('ReplayCaller', 'fill', [500n]),
    }),
    await send('validator3', dev(4), 'CREATE, CREATE2, self-destruct', 1, {
      ...FEES_1559,
      gasLimit: 1_000_000n,
      to: probe,
      value: 3n,
      data: calldata('TraceProbe', 'deploy', [id('salt 2')]),
    }),
    await send('validator3', dev(4), 'DELEGATECALL and a precompile', 1, {
      ...FEES_2930,
      to: probe,
      data: calldata('TraceProbe', 'nested', [3n]),
    }),
    await send('validator3', freshA, 'fresh A: ERC20 transfer (2930, slot listed)', 1, {
      ...FEES_2930,
      accessList: [{ address: token, storageKeys: ['0x' + '00'.repeat(32)] }],
      to: token,
      data: calldata('TestToken', 'transfer', [getAddress(hexKey(DEV_ACCOUNTS[7].evmAddress)), 100n]),
    }),
    await send('validator3', freshC, 'fresh C first tx (legacy)', 1, {
      ...FEES_LEGACY,
      gasLimit: 21_000n,
      to: getAddress(hexKey(DEV_ACCOUNTS[0].evmAddress)),
      value: 1n,
    }),
    await send('validator3', dev(6), 'a top call that reverts after a write', 0, {
      ...FEES_1559,
      to: probe,
      data: calldata('TraceProbe', 'failing'),
    }),
  ];
  await included('rpc0', wave3);
  workload.push(...wave3);

  // wave 4: self-destruct of a contract made in an earlier tx (only its balance moves)
  const child = getCreateAddress({ from: probe, nonce: 1 });
  assert.notEqual((await net!.evm('rpc0', 'eth_getCode', [child, 'latest'])).result, '0x');
  const wave4 = [
    await send('validator0', dev(8), 'self-destruct of an older contract', 1, {
      ...FEES_1559,
      to: child,
      data: calldata('TraceChild', 'destroy', [getAddress(hexKey(DEV_ACCOUNTS[8].evmAddress))]),
    }),
  ];
  await included('validator0', wave4);
  workload.push(...wave4);

  // until blocks holding txs were proposed by both kinds of validator: plain transfers, one a block
  const kinds = async () => {
    const heights = new Set(
      await Promise.all(workload.map(async (s) => Number((await receipt('rpc0', s.hash)).blockNumber))),
    );
    const proposers = await Promise.all(
      [...heights].map(async (h) => proposerName((await cometBlock('rpc0', h)).proposer)),
    );
    return { heights: heights.size, engines: new Set(proposers.map((p) => ENGINES[p])) };
  };
  for (let i = 0; (await kinds()).engines.size < 2; i++) {
    assert.ok(i < 12, 'no block with txs proposed by one of the kinds after 12 more blocks');
    const s = await send(i % 2 ? 'validator2' : 'validator3', dev(9), 'value transfer', 1, {
      ...FEES_1559,
      gasLimit: 21_000n,
      to: freshB.address,
      value: 1n + BigInt(i),
    });
    await included('rpc0', [s]);
    workload.push(s);
  }
  const seen = await kinds();
  t.diagnostic(
    `${workload.length} txs in ${seen.heights} blocks, proposed by ${[...seen.engines].join(' and ')} validators`,
  );

  // every node: the same blocks and app hashes (the block after the last tx carries its app hash)
  const last = Math.max(
    ...(await Promise.all(workload.map(async (s) => Number((await receipt('rpc0', s.hash)).blockNumber)))),
  );
  for (const n of NODES) await waitHeight(n, last + 1);
  await assertSameChain(NODES, 1, last + 1);
  for (const s of workload) {
    const ref = await receipt('validator0', s.hash);
    for (const n of NODES.slice(1))
      assert.deepEqual(await receipt(n, s.hash), ref, `${n} (${ENGINES[n]}): receipt of ${s.label}`);
  }
  // the self-destructed CREATE2 contract is gone, the older one keeps its code (EIP-6780) and lost its balance
  for (const n of NODES) {
    assert.equal(
      BigInt((await net!.evm(n, 'eth_getBalance', [child, '0x' + (last + 1).toString(16)])).result),
      0n,
      `${n}: ${child}`,
    );
  }
});

/** Sends value transfers through `via`, one after another's inclusion, until `stop` is set. */
function backgroundLoad(via: string, from: Wallet, stop: { now: boolean }): Promise<Sent[]> {
  return (async () => {
    const sent: Sent[] = [];
    for (let i = 0; !stop.now; i++) {
      const s = await send(via, from, `load ${i}`, 1, {
        ...(i % 2 ? FEES_LEGACY : FEES_1559),
        gasLimit: 21_000n,
        to: getAddress(hexKey(DEV_ACCOUNTS[3].evmAddress)),
        value: 1n + BigInt(i),
      });
      await included(via, [s]);
      sent.push(s);
    }
    return sent;
  })();
}

/** The pids of `pid`'s children (a chaind's cometbft), from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      if (readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid))
        out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

/** Running (a zombie, whose parent died before reaping it, is not). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * SIGKILLs `victim` while it applies a block, restarts it, and waits until it is past the others'
 * height at the restart. Says what the restart replayed: the blocks chaind ran again from its own
 * block store, and those CometBFT's handshake gave it again (both run on the node's engine).
 */
async function crashAndRestart(victim: string): Promise<{ replayed: number; text: string }> {
  const first = runs.get(victim)!.at(-1)!;
  const from = await net!.height(victim);
  // between CometBFT's FinalizeBlock and the application's Commit, where a crash leaves the stores
  // and CometBFT at different heights
  await first.waitForLine(
    (l) => l.includes('"msg":"executed block"') && json(l).height >= from + 2,
    DEADLINE,
  );
  const pid = first.child.pid!;
  const comet = childrenOf(pid);
  process.kill(pid, 'SIGKILL');
  assert.equal((await first.exited).signal, 'SIGKILL');
  await net!.stop(victim); // (already exited: only forgets the process)
  const before = Math.max(...committed(victim).keys());
  // its cometbft stops itself once the application's socket is gone; a restart needs its ports
  const deadline = Date.now() + DEADLINE;
  while (comet.some(alive)) {
    assert.ok(Date.now() < deadline, `cometbft ${comet} of the killed node still runs`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // the three others go on without it (3 of 4 is over two thirds)
  await waitHeight('validator0', before + 3);

  const again = net!.start(victim);
  runs.get(victim)!.push(again);
  const engine = json(await again.waitForLine((l) => l.includes('"msg":"block execution engine"'), DEADLINE));
  assert.equal(engine.engine, ENGINES[victim]);
  const opened = json(await again.waitForLine((l) => l.includes('"msg":"chain opened"'), DEADLINE));
  assert.ok(opened.height >= before, `reopened at ${opened.height}, but ${before} was logged committed`);
  const fromStore = again.lines.filter((l) => l.includes('"msg":"replayed block"')).length;
  const handshake = json(await again.waitForLine((l) => l.includes('"msg":"ABCI Replay Blocks"'), DEADLINE));
  const fromComet = handshake.storeHeight - handshake.appHeight;
  const top = await net!.height('validator0');
  await waitHeight(victim, top + 2);
  // every block since the one it reopened at, it ran itself after the restart
  const own = committed(victim);
  for (let h = opened.height + 1; h <= top; h++)
    assert.ok(own.has(h), `${victim} did not commit ${h} after the restart`);
  return {
    replayed: fromStore + fromComet,
    text:
      `killed after committing ${before}; reopened at ${opened.height} with ${fromStore} block(s) replayed ` +
      `from its block store; CometBFT's handshake (app ${handshake.appHeight}, state ` +
      `${handshake.stateHeight}, store ${handshake.storeHeight}) replayed ${fromComet}; caught up to ${top + 2}`,
  };
}

test('a revm validator killed (SIGKILL) while the chain runs replays on restart and rejoins with the same hashes; the ethereumjs RPC node answers as a revm validator', async (t) => {
  if (!readyOrSkip(t)) return;
  const victim = 'validator2';
  assert.equal(ENGINES[victim], 'revm');
  const stop = { now: false };
  const load = backgroundLoad('rpc0', dev(7), stop);
  load.catch(() => {}); // (awaited below; a failure meanwhile must not end the process)
  try {
    // the kill lands inside a block's commit as a rule, though not always: until one restart replays
    let replayed = 0;
    for (let attempt = 1; replayed === 0; attempt++) {
      assert.ok(attempt <= 3, 'three restarts in a row replayed nothing');
      const crash = await crashAndRestart(victim);
      t.diagnostic(crash.text);
      replayed = crash.replayed;
    }
  } finally {
    stop.now = true;
  }
  const loaded = await load;
  workload.push(...loaded);
  const last = Math.max(
    ...(await Promise.all(loaded.map(async (s) => Number((await receipt('rpc0', s.hash)).blockNumber)))),
  );
  for (const n of NODES) await waitHeight(n, last + 1);
  await assertSameChain(NODES, 1, last + 1);
  // the ethereumjs RPC node followed the chain and answers every receipt as a revm validator does
  for (const s of workload) {
    const ref = await receipt('validator0', s.hash);
    assert.deepEqual(
      await receipt('rpc0', s.hash),
      ref,
      `rpc0 (ethereumjs) vs validator0 (revm): ${s.label}`,
    );
    assert.deepEqual(await receipt(victim, s.hash), ref, `${victim} after its restart: ${s.label}`);
  }
});
