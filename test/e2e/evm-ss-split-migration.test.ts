/**
 * The operator procedure of docs/operators/evm-ss-split-migration.md, end to end on a real network:
 * three validators take snapshots while an RPC node with history and the split off serves traffic.
 * The RPC node then goes through steps 2–10 as the document writes them (app.toml and config.toml
 * edited, stopped, three files kept aside, data wiped, `chaind init`, settings re-applied, trust
 * height and hash from a validator's `/block?height=`, files restored, started), switching
 * `ss-backend` to rocksdb on the way: it logs the three events of the split layout, fills
 * `data/evm_ss/`, traces `latest`, and answers EVM and Cosmos reads as the validators do. The split
 * is then turned off again (EVM-state reads miss what was written after the split) and the node is
 * state synced once more without it (the reads agree again).
 *
 * Beside it, a second RPC node running the split from genesis with `evm-ss-db-directory` outside its
 * data directory goes through the same steps: the wipe of `data/` leaves that directory behind, and
 * the start removes it before state syncing (docs/adr/0017-state-sync-clears-unfinished-attempts.md).
 */
import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AbiCoder, JsonRpcProvider, getAddress, keccak256, parseEther } from 'ethers';
import { installedBinaryPath } from '../../src/cometbft/binary.ts';
import { toAccAddress } from '../../src/crypto/accounts.ts';
import { type ChaindProcess, runChaind } from '../helpers/chaind.ts';
import { cometbftOrSkip, deployTestToken, TestNetwork } from '../helpers/network.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';

const VALIDATORS = ['validator0', 'validator1', 'validator2'];
const INTERVAL = 10;
/** The trust-height offset below the latest height (the document's example uses 10000). */
const TRUST_OFFSET = 2 * INTERVAL;
const KEPT = ['data/priv_validator_state.json', 'config/priv_validator_key.json', 'config/genesis.json'];
/** What rpc0's operator had changed from init's defaults in config.toml (step 7 re-applies them). */
const CONFIG_SETTINGS: [section: string, key: string][] = [
  ['rpc', 'laddr'],
  ['p2p', 'laddr'],
  ['p2p', 'addr-book-strict'],
  ['p2p', 'allow-duplicate-ip'],
  ['instrumentation', 'prometheus-listen-addr'],
];
/** TestToken's `balanceOf` mapping is its fourth slot (name, symbol, totalSupply before it). */
const BALANCE_SLOT = 3n;

const hexKey = (k: Uint8Array) => '0x' + Buffer.from(k).toString('hex');
const hexHeight = (h: number) => '0x' + h.toString(16);
const balanceSlot = (holder: string) =>
  keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [holder, BALANCE_SLOT]));

function jsonLine(line: string): Record<string, any> | undefined {
  try {
    return JSON.parse(line) as Record<string, any>;
  } catch {
    return undefined;
  }
}

/** The literal value of `key` in `[section]` of a TOML file's text (a key before any section: ''). */
function tomlValue(text: string, section: string, key: string): string {
  let current = '';
  for (const line of text.split('\n')) {
    const header = /^\[([^\]]+)\]\s*$/.exec(line);
    if (header) current = header[1];
    else if (current === section && line.startsWith(`${key} = `)) return line.slice(key.length + 3);
  }
  throw new Error(`no ${key} in [${section}]`);
}

/** Sets `key` in `[section]` of a TOML file, as an operator's editor would. */
function setToml(path: string, section: string, key: string, value: string): void {
  let current = '';
  let done = false;
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => {
      const header = /^\[([^\]]+)\]\s*$/.exec(line);
      if (header) current = header[1];
      else if (current === section && line.startsWith(`${key} = `)) {
        done = true;
        return `${key} = ${value}`;
      }
      return line;
    });
  if (!done) throw new Error(`${path} has no ${key} in [${section}]`);
  writeFileSync(path, lines.join('\n'));
}

/** Total bytes of the files under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  return total;
}

const net: TestNetwork | undefined = existsSync(installedBinaryPath())
  ? await TestNetwork.create({ after }, { validators: 3, rpcNodes: 2 })
  : undefined;

const providers: JsonRpcProvider[] = [];
after(() => {
  for (const p of providers) p.destroy();
});

test('an RPC node with history moves to the split layout and to rocksdb by state sync as the operator document says, turns the split off (the gap) and back by another state sync', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const n = net!;
  const rpc0 = n.node('rpc0');
  const rpc1 = n.node('rpc1');
  const externalEvm = join(rpc1.home, 'evm-ss-disk');

  // Validators take snapshots; keep-recent spans CometBFT's snapshot discovery.
  for (const name of VALIDATORS)
    n.start(name, [
      '--state-sync.snapshot-interval',
      String(INTERVAL),
      '--state-sync.snapshot-keep-recent',
      '50',
    ]);
  // rpc0: history, split off (the node to migrate). rpc1: the split from genesis, its EVM State Store
  // outside the data directory.
  n.start('rpc0');
  setToml(join(rpc1.home, 'config', 'app.toml'), 'state-store', 'evm-ss-split', 'true');
  setToml(
    join(rpc1.home, 'config', 'app.toml'),
    'state-store',
    'evm-ss-db-directory',
    JSON.stringify(externalEvm),
  );
  n.start('rpc1');
  await n.waitHeight('validator0', 2);

  // traffic: an ERC20, its transfers and value transfers
  const {
    provider: rpc,
    owner,
    address: tokenAddress,
    token: erc20,
  } = await deployTestToken(n.evmUrl('validator0'), 'Split', 'SPL', parseEther('1000000'));
  providers.push(rpc);
  const evmAddr = (i: number) => getAddress(hexKey(DEV_ACCOUNTS[i].evmAddress));
  let nonce = await owner.getNonce('pending');
  /** Sends in nonce order, then waits for every receipt; the height of the last block. */
  const send = async (txs: (() => Promise<{ wait(): Promise<any> }>)[]) => {
    const sent = [];
    for (const tx of txs) sent.push(await tx());
    let last = 0;
    for (const tx of sent) {
      const r = await tx.wait();
      assert.equal(r.status, 1);
      last = Math.max(last, r.blockNumber);
    }
    return last;
  };
  const before = await send(
    [1, 2, 3].flatMap((i) => [
      () => erc20.transfer(evmAddr(i), parseEther(String(i)), { nonce: nonce++ }),
      () => owner.sendTransaction({ to: evmAddr(i), value: parseEther('0.5'), nonce: nonce++ }),
    ]),
  );
  // both RPC nodes have the history
  await Promise.all([n.waitHeight('rpc0', before, 120_000), n.waitHeight('rpc1', before, 120_000)]);
  // a snapshot above the traffic exists before the nodes look for one
  const v0 = n.processes.get('validator0')!;
  const snapshotAbove = Math.ceil((before + 1) / INTERVAL) * INTERVAL;
  await v0.waitForLine((l) => {
    const j = jsonLine(l);
    return j?.msg === 'state-sync snapshot taken' && j.height >= snapshotAbove;
  }, 120_000);
  assert.ok(bytesUnder(externalEvm) > 0, 'rpc1 filled its EVM State Store from genesis');

  /** Steps 2–9 of the document on `name`; returns the started process and the kept files' bytes. */
  const migrate = async (name: string, appSettings: [key: string, value: string][]) => {
    const home = n.node(name).home;
    const file = (rel: string) => join(home, rel);
    // 2. app.toml
    for (const [key, value] of appSettings) setToml(file('config/app.toml'), 'state-store', key, value);
    // 3. stop
    const stopped = await n.stop(name);
    assert.equal(stopped?.code, 0, `${name} stopped cleanly`);
    // 4. keep three files (and the old config.toml for step 7)
    const keep = join(home, '..', `${name}-keep`);
    rmSync(keep, { recursive: true, force: true });
    mkdirSync(keep);
    const kept = new Map<string, Buffer>();
    for (const rel of KEPT) {
      copyFileSync(file(rel), join(keep, rel.split('/')[1]));
      kept.set(rel, readFileSync(file(rel)));
    }
    const oldConfig = readFileSync(file('config/config.toml'), 'utf8');
    // 5. delete the data directory's contents, the old key, genesis and config.toml
    for (const e of readdirSync(file('data'))) rmSync(file(`data/${e}`), { recursive: true, force: true });
    for (const rel of ['config/priv_validator_key.json', 'config/genesis.json', 'config/config.toml'])
      rmSync(file(rel));
    const app = readFileSync(file('config/app.toml'), 'utf8');
    // 6. re-initialise (the lone app.toml is kept)
    const init = runChaind(['init', name, '--chain-id', n.manifest.chain_id, '--home', home]);
    assert.equal(init.code, 0, init.stderr);
    assert.equal(readFileSync(file('config/app.toml'), 'utf8'), app, 'init kept app.toml');
    assert.notDeepEqual(
      readFileSync(file('config/priv_validator_key.json')),
      kept.get('config/priv_validator_key.json'),
      'init wrote a key of its own',
    );
    // 7. re-apply config.toml settings
    for (const [section, key] of CONFIG_SETTINGS)
      setToml(file('config/config.toml'), section, key, tomlValue(oldConfig, section, key));
    // 8. trust height and hash from a trusted RPC, persistent peers, state sync
    await n.waitHeight('validator0', snapshotAbove + TRUST_OFFSET);
    const latest = Number((await n.consensus('validator0', '/block')).body.result.block.header.height);
    assert.ok(latest >= snapshotAbove + TRUST_OFFSET, `latest height ${latest}`);
    const trustHeight = latest - TRUST_OFFSET;
    const trustHash = (await n.consensus('validator0', `/block?height=${trustHeight}`)).body.result.block_id
      .hash as string;
    const peers = await Promise.all(
      VALIDATORS.map(async (v) => {
        const id = (await n.consensus(v, '/status')).body.result.node_info.id as string;
        return `${id}@127.0.0.1:${n.node(v).ports.p2p}`;
      }),
    );
    const config = file('config/config.toml');
    setToml(config, 'p2p', 'persistent-peers', JSON.stringify(peers));
    setToml(config, 'statesync', 'enable', 'true');
    setToml(
      config,
      'statesync',
      'rpc-servers',
      JSON.stringify([n.rpcUrl('validator0'), n.rpcUrl('validator1')]),
    );
    setToml(config, 'statesync', 'trust-height', String(trustHeight));
    setToml(config, 'statesync', 'trust-hash', JSON.stringify(trustHash));
    setToml(config, 'statesync', 'trust-period', '"168h"');
    // CometBFT's least snapshot discovery, rather than the 15 s default the document keeps
    setToml(config, 'statesync', 'discovery-time', '"5s"');
    // 9. restore the kept files, start
    for (const rel of KEPT) copyFileSync(join(keep, rel.split('/')[1]), file(rel));
    return { node: n.start(name), kept };
  };

  /** The height a node restored; a node that exits first fails at once, with its error. */
  const restoredHeight = async (p: ChaindProcess) => {
    const line = await Promise.race([
      p.waitForLine((l) => jsonLine(l)?.msg === 'state restored from a state-sync snapshot', 180_000),
      p.exited.then(({ code }) => {
        throw new Error(`exited (${code}) before restoring a snapshot: ${p.stderr}`);
      }),
    ]);
    return jsonLine(line)!.height as number;
  };

  // The reads an operator compares: EVM state (balance, storage, code), a call, a Cosmos bank balance.
  const holder = evmAddr(2);
  const late = evmAddr(7); // receives tokens only after the split
  const balanceOf = (who: string) => erc20.interface.encodeFunctionData('balanceOf', [who]);
  const rest = async (name: string, path: string, height: number) => {
    const res = await fetch(`http://127.0.0.1:${n.node(name).ports.rest}${path}`, {
      headers: { 'x-cosmos-block-height': String(height) },
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: await res.json() };
  };
  const sameAsValidators = async (name: string, heights: number[], callHeights: number[]) => {
    for (const h of heights) {
      const at = hexHeight(h);
      const reads: [string, unknown[]][] = [
        ['eth_getBalance', [holder, at]],
        ['eth_getBalance', [owner.address, at]],
        ['eth_getStorageAt', [tokenAddress, balanceSlot(holder), at]],
        ['eth_getStorageAt', [tokenAddress, balanceSlot(late), at]],
        ['eth_getCode', [tokenAddress, at]],
      ];
      for (const [method, params] of reads) {
        const got = await n.evm(name, method, params);
        const want = await n.evm('validator1', method, params);
        assert.equal(got.error, undefined, `${name} ${method} at ${h}: ${JSON.stringify(got.error)}`);
        assert.equal(got.result, want.result, `${name} ${method}(${params[0]}, ${params[1]}) at ${h}`);
      }
      const bank = `/cosmos/bank/v1beta1/balances/${toAccAddress(DEV_ACCOUNTS[2].cosmosAddress)}`;
      const got = await rest(name, bank, h);
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.deepEqual(got.body, (await rest('validator1', bank, h)).body, `${name} bank balance at ${h}`);
    }
    for (const h of callHeights) {
      const call = [{ to: tokenAddress, data: balanceOf(holder) }, hexHeight(h)];
      const got = await n.evm(name, 'eth_call', call);
      assert.equal(got.error, undefined, `${name} eth_call at ${h}: ${JSON.stringify(got.error)}`);
      assert.equal(
        got.result,
        (await n.evm('validator1', 'eth_call', call)).result,
        `${name} balanceOf at ${h}`,
      );
      assert.equal(BigInt(got.result), parseEther('2'));
    }
  };
  // the slot read is the holder's token balance (checked on a validator, so a wrong slot cannot pass)
  assert.equal(
    BigInt(
      (await n.evm('validator1', 'eth_getStorageAt', [tokenAddress, balanceSlot(holder), 'latest'])).result,
    ),
    parseEther('2'),
  );

  // ── the migration: rpc0 to the split on rocksdb; rpc1 (split on) with its stale external EVM store
  const staleEntries = readdirSync(externalEvm);
  const [m0, m1] = await Promise.all([
    migrate('rpc0', [
      ['ss-backend', '"rocksdb"'],
      ['evm-ss-split', 'true'],
    ]),
    migrate('rpc1', []),
  ]);
  const [R, R1] = await Promise.all([restoredHeight(m0.node), restoredHeight(m1.node)]);
  assert.ok(R >= snapshotAbove && R1 >= snapshotAbove, `restored above the traffic: ${R}, ${R1}`);

  // 10. the three startup events with their labels
  const rpc0Events = m0.node.lines.map(jsonLine).filter((j) => j?.module === 'ss');
  const event = (msg: string) => rpc0Events.find((j) => j?.msg === msg);
  assert.equal(event('ChainDB SS is enabled')?.backend, 'rocksdb');
  assert.equal(event('ChainDB EVM StateStore optimization is enabled')?.separateDBs, false);
  assert.equal(event('EVM state store enabled')?.dir, join(rpc0.home, 'data', 'evm_ss'));
  assert.equal(event('EVM state store enabled')?.separateDBs, false);
  // the new backend's stores are filled; the old one's directory is gone with the wipe
  assert.ok(bytesUnder(join(rpc0.home, 'data', 'evm_ss', 'evm')) > 0, 'data/evm_ss/evm holds a database');
  assert.ok(bytesUnder(join(rpc0.home, 'data', 'rocksdb')) > 0);
  assert.equal(existsSync(join(rpc0.home, 'data', 'pebbledb')), false);
  // the kept files are the ones the node runs with
  for (const [rel, bytes] of m0.kept)
    assert.deepEqual(readFileSync(join(rpc0.home, rel)), bytes, `${rel} restored`);
  const key = JSON.parse(m0.kept.get('config/priv_validator_key.json')!.toString('utf8'));
  assert.equal(
    (await n.consensus('rpc0', '/status')).body.result.validator_info.pub_key.value,
    key.pub_key.value,
    'CometBFT signs with the kept validator key',
  );

  // rpc1: the EVM store left outside the wiped data directory was removed before the state sync
  const removed = m1.node.lines
    .map(jsonLine)
    .filter((j) => j?.msg?.startsWith('stale ') && j.module === 'node');
  assert.deepEqual(
    removed.map((j) => [j!.store, j!.dir, j!.entries]),
    [['EVM state store', externalEvm, staleEntries]],
  );
  assert.ok(
    m1.node.lines.findIndex((l) => jsonLine(l)?.msg?.startsWith('stale EVM state store removed')) <
      m1.node.lines.findIndex((l) => jsonLine(l)?.msg === 'EVM state store enabled'),
    'removed before the EVM State Store opened',
  );
  assert.equal(
    m1.node.lines.map(jsonLine).find((j) => j?.msg === 'EVM state store enabled')?.dir,
    externalEvm,
  );
  assert.ok(bytesUnder(externalEvm) > 0, 'rpc1 refilled its EVM State Store from the snapshot');

  // the restored nodes follow the chain and answer as the validators do at and after the snapshot
  const top = await n.height('validator0');
  await Promise.all([n.waitHeight('rpc0', top + 2, 120_000), n.waitHeight('rpc1', top + 2, 120_000)]);
  await sameAsValidators('rpc0', [R, R + 2], [R + 1, R + 2]);
  await sameAsValidators('rpc1', [R1, R1 + 2], [R1 + 1]);
  const trace = await n.evm('rpc0', 'debug_traceBlockByNumber', ['latest', {}]);
  assert.equal(trace.error, undefined, JSON.stringify(trace.error));
  assert.ok(Array.isArray(trace.result), `a result: ${JSON.stringify(trace)}`);

  // ── more traffic after the split: `late` receives tokens (a slot written only after the split)
  nonce = await owner.getNonce('pending');
  const W = await send([
    () => erc20.transfer(late, parseEther('7'), { nonce: nonce++ }),
    () => owner.sendTransaction({ to: late, value: parseEther('0.25'), nonce: nonce++ }),
  ]);
  await n.waitHeight('rpc0', W + 1, 120_000);
  await sameAsValidators('rpc0', [W], [W]);
  const lateSlot = [tokenAddress, balanceSlot(late), hexHeight(W)];
  const written = (await n.evm('validator1', 'eth_getStorageAt', lateSlot)).result;
  assert.equal(BigInt(written), parseEther('7'));

  // ── the split off again: EVM-state queries miss what was written after the split
  setToml(join(rpc0.home, 'config', 'app.toml'), 'state-store', 'evm-ss-split', 'false');
  await n.stop('rpc0');
  const off = n.start('rpc0');
  await n.waitHeight('rpc0', W + 3, 120_000);
  assert.equal(
    off.lines.some((l) => jsonLine(l)?.msg === 'EVM state store enabled'),
    false,
    'the EVM State Store is no longer opened',
  );
  assert.ok(bytesUnder(join(rpc0.home, 'data', 'evm_ss', 'evm')) > 0, 'it stays on disk');
  // [statesync] enable = true is still set, but a node with blocks never clears anything
  assert.equal(
    off.lines.some((l) => jsonLine(l)?.msg?.startsWith('stale ')),
    false,
  );
  assert.ok(bytesUnder(join(rpc0.home, 'data', 'rocksdb')) > 0);
  const gap = await n.evm('rpc0', 'eth_getStorageAt', lateSlot);
  assert.equal(gap.error, undefined);
  assert.equal(
    BigInt(gap.result),
    0n,
    `the slot written after the split reads empty (validators: ${written})`,
  );
  // This node got the split by state sync, so all its EVM module state (nonces, code, storage) was
  // written after the split: none of it is in the Cosmos State Store
  const code = await n.evm('rpc0', 'eth_getCode', [tokenAddress, hexHeight(W)]);
  assert.equal(code.result, '0x');
  assert.notEqual((await n.evm('validator1', 'eth_getCode', [tokenAddress, hexHeight(W)])).result, '0x');
  const count = await n.evm('rpc0', 'eth_getTransactionCount', [owner.address, hexHeight(W)]);
  assert.equal(count.result, '0x0');
  // An EVM balance is the bank balance of the Cosmos account the address is associated with, and
  // the association is EVM module state: missed too. The bank balance itself (Cosmos) is unaffected.
  const lateBalance = [late, hexHeight(W)];
  assert.equal((await n.evm('rpc0', 'eth_getBalance', lateBalance)).result, '0x0');
  assert.notEqual((await n.evm('validator1', 'eth_getBalance', lateBalance)).result, '0x0');
  const bank = `/cosmos/bank/v1beta1/balances/${toAccAddress(DEV_ACCOUNTS[7].cosmosAddress)}`;
  assert.deepEqual((await rest('rpc0', bank, W)).body, (await rest('validator1', bank, W)).body);

  // ── another state sync without the split: the reads agree again
  const again = await migrate('rpc0', [['evm-ss-split', 'false']]);
  const R2 = await restoredHeight(again.node);
  assert.ok(R2 > W, `restored a snapshot above the post-split traffic (${R2} > ${W})`);
  assert.equal(
    again.node.lines.map(jsonLine).find((j) => j?.msg === 'ChainDB SS is enabled')?.backend,
    'rocksdb',
  );
  assert.equal(
    again.node.lines.some((l) => jsonLine(l)?.msg === 'EVM state store enabled'),
    false,
  );
  assert.equal(existsSync(join(rpc0.home, 'data', 'evm_ss')), false, 'the wipe removed the EVM State Store');
  await n.waitHeight('rpc0', R2 + 2, 120_000);
  await sameAsValidators('rpc0', [R2, R2 + 2], [R2 + 1]);
  const healed = await n.evm('rpc0', 'eth_getStorageAt', [tokenAddress, balanceSlot(late), hexHeight(R2)]);
  assert.equal(BigInt(healed.result), parseEther('7'));
  for (const [rel, bytes] of again.kept)
    assert.deepEqual(readFileSync(join(rpc0.home, rel)), bytes, `${rel} restored`);
});
