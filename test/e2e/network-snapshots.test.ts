/**
 * Snapshots as operator objects, over real CometBFT: one network of three validators (genesis with
 * many funded accounts, so a snapshot is several chunks and takes longer than a block) and three RPC
 * nodes that join late by state sync.
 *
 * - validator0 (A) takes snapshots while producing blocks; `chaind snapshots export` writes one into
 *   an archive, `restore` loads it into validator1 (B), which takes none itself; a fresh node whose
 *   only peer is B state-syncs from it.
 * - a chunk corrupted in B's copy is refused and fetched again from another provider.
 * - an archive whose items name the EVM store `evm_flatkv` restores to the same state.
 * - a snapshot deleted on its only provider while a node restores it: the node says what it waits for
 *   (eth_syncing, /status, /lag_status, its log), then stops with one error naming the remedy.
 * - `chaind rollback` leaves the snapshots where they were.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { JsonRpcProvider, getAddress, parseEther } from 'ethers';
import { installedBinaryPath } from '../../src/cometbft/binary.ts';
import { exportSnapshotArchive, openSnapshotArchive } from '../../src/cometbft/snapshot-archive.ts';
import { readSnapshotItems, SnapshotStore } from '../../src/cometbft/snapshots.ts';
import type { SnapshotItem } from '../../src/storage/sc/snapshot-items.ts';
import { runChaind, tempHome } from '../helpers/chaind.ts';
import { cometbftOrSkip, deployTestToken, TestNetwork } from '../helpers/network.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';

const INTERVAL = 10;
/** Genesis accounts: ~100k State Commit keys, a snapshot of a few MB that takes several blocks to write. */
const ACCOUNTS = 40_000;
const CHUNK_BYTES = 512 * 1024;
const hexKey = (k: Uint8Array) => '0x' + Buffer.from(k).toString('hex');
const hexHeight = (h: number) => '0x' + h.toString(16);

function jsonLine(line: string): Record<string, any> | undefined {
  try {
    return JSON.parse(line) as Record<string, any>;
  } catch {
    return undefined;
  }
}
const msgIs = (msg: string) => (l: string) => jsonLine(l)?.msg === msg;
const peerOf = (name: string) => `${net!.node(name).node_id}@127.0.0.1:${net!.node(name).ports.p2p}`;

const net: TestNetwork | undefined = existsSync(installedBinaryPath())
  ? await TestNetwork.create({ after }, { validators: 3, rpcNodes: 4 })
  : undefined;
const genesisAccounts = net?.fundGenesisAccounts(ACCOUNTS) ?? [];
const scratch = tempHome({ after }, 'chaind-snapshots-');
// Validators peer only with each other (no PEX): a node that state-syncs meets exactly the peers its
// case names, never a validator dialling it with snapshots of its own.
const VALIDATORS = ['validator0', 'validator1', 'validator2'];
const validatorFlags = (name: string) => [
  '--p2p.persistent-peers',
  VALIDATORS.filter((v) => v !== name)
    .map((v) => peerOf(v))
    .join(','),
  '--p2p.pex',
  'false',
];
// A keeps every snapshot it takes while this file runs: the first case exports and lists H while A
// goes on taking snapshots, and with a few kept, later ones pruned H as soon as the machine ran the
// case slowly (keep-recent itself is the unit tests' subject). 10,000 × INTERVAL blocks, at least
// 150 ms apart (timeout-commit), take 15,000 s: far longer than this file may run (its boot, at most
// 600 s, then five cases of at most 300 s).
const KEEP_RECENT = 10_000;
net?.start('validator0', [
  ...validatorFlags('validator0'),
  '--state-sync.snapshot-interval',
  String(INTERVAL),
  '--state-sync.snapshot-keep-recent',
  String(KEEP_RECENT),
  '--state-sync.snapshot-chunk-bytes',
  String(CHUNK_BYTES),
]);
for (const name of net ? ['validator1', 'validator2'] : [])
  net!.start(name, [...validatorFlags(name), '--state-sync.snapshot-interval', '0']);
// The network's boot (every validator's InitChain of the genesis accounts) is setup, outside the cases'
// time limit: it took 50 s on an idle machine and 105 s on a loaded one, most of the first case's 300 s.
const bootStart = Date.now();
if (net) await net.waitHeight('validator0', 2, 600_000);
const bootMs = Date.now() - bootStart;

const providers: JsonRpcProvider[] = [];
after(() => {
  for (const p of providers) p.destroy();
});

/** What the cases share: the snapshot exported from A and the EVM state it holds. */
let H = 0;
let archive = '';
let token = '';
const holder = getAddress(hexKey(DEV_ACCOUNTS[2].evmAddress));

/** Flags of a node that state-syncs, trusting a block below H, whose p2p peers are only `peers`. */
async function stateSyncFlags(peers: string[]): Promise<string[]> {
  const trustHeight = H - 3;
  const trusted = await net!.consensus('validator2', `/block?height=${trustHeight}`);
  return [
    '--statesync.enable',
    'true',
    '--statesync.rpc-servers',
    `${net!.rpcUrl('validator0')},${net!.rpcUrl('validator2')}`,
    '--statesync.trust-height',
    String(trustHeight),
    '--statesync.trust-hash',
    trusted.body.result.block_id.hash as string,
    '--p2p.persistent-peers',
    peers.map(peerOf).join(','),
    '--p2p.pex',
    'false',
    // CometBFT's least snapshot discovery, rather than the 15 s default an operator keeps
    '--statesync.discovery-time',
    '5s',
  ];
}

/** The node, state-synced to H, went on two blocks and serves the validators' state at H and H + 2. */
async function assertCaughtUpFromSnapshot(name: string): Promise<void> {
  await net!.waitHeight(name, H + 2, 120_000);
  await assertSameStateAt(name, H);
  await assertSameStateAt(name, H + 2);
}

/** The node serves the validators' balances, code and storage at the snapshot height. */
async function assertSameStateAt(name: string, h: number): Promise<void> {
  const dev0 = getAddress(hexKey(DEV_ACCOUNTS[0].evmAddress));
  const checks: [string, unknown[]][] = [
    ['eth_getBalance', [holder, hexHeight(h)]],
    ['eth_getBalance', [dev0, hexHeight(h)]],
    ['eth_getTransactionCount', [dev0, hexHeight(h)]],
    ['eth_getCode', [token, hexHeight(h)]],
    ...[0, 1, 2, 3, 4].map((slot): [string, unknown[]] => [
      'eth_getStorageAt',
      [token, hexHeight(slot), hexHeight(h)],
    ]),
    ...genesisAccounts
      .slice(0, 3)
      .map((a): [string, unknown[]] => ['eth_getBalance', [getAddress(hexKey(a)), hexHeight(h)]]),
  ];
  for (const [method, params] of checks) {
    const got = await net!.evm(name, method, params);
    const want = await net!.evm('validator2', method, params);
    assert.equal(got.error, undefined, `${name} ${method} at ${h}: ${JSON.stringify(got.error)}`);
    assert.equal(got.result, want.result, `${name} ${method}(${params.join(', ')})`);
  }
  const b = await net!.evm(name, 'eth_getBalance', [holder, hexHeight(h)]);
  assert.ok(BigInt(b.result) > 0n);
}

test('A takes multi-chunk snapshots while blocks keep coming; export on A, restore into B (one-line refusals otherwise)', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const a = net!.processes.get('validator0')!;
  t.diagnostic(`height 2 after ${bootMs} ms`);

  // EVM state in the snapshot: an ERC20 with balances in its storage
  const deployed = await deployTestToken(net!.evmUrl('validator0'), 'Snap', 'SNP', parseEther('1000'));
  providers.push(deployed.provider);
  token = deployed.address;
  const transfer = await deployed.token.transfer(holder, parseEther('3'));
  const mined = (await transfer.wait())!;
  const sent = await deployed.owner.sendTransaction({ to: holder, value: parseEther('0.25') });
  const last = (await sent.wait())!.blockNumber;

  // (a) a snapshot above the traffic: the blocks committed after its height and before its
  // "taken" line show block production went on while it was written
  const above = Math.ceil((Math.max(last, mined.blockNumber) + 1) / INTERVAL) * INTERVAL;
  const takenAt = await a.waitForLine((l) => {
    const j = jsonLine(l);
    return j?.msg === 'state-sync snapshot taken' && j.height >= above;
  }, 180_000);
  const taken = jsonLine(takenAt)!;
  H = taken.height;
  t.diagnostic(
    `snapshot at ${H}: ${taken.chunks} chunks, ${taken.items} items, ${taken.size} bytes, ${taken.ms} ms`,
  );
  assert.ok(taken.chunks >= 3, `${taken.chunks} chunks`);
  assert.ok(taken.items > 2 * ACCOUNTS, `${taken.items} items`);
  const linesBefore = a.lines.slice(0, a.lines.indexOf(takenAt));
  const committedAtH = linesBefore.findIndex((l) => msgIs('committed block')(l) && jsonLine(l)!.height === H);
  assert.ok(committedAtH >= 0, `block ${H} committed before its snapshot was taken`);
  const during = linesBefore
    .slice(committedAtH + 1)
    .filter(msgIs('committed block'))
    .map((l) => jsonLine(l)!.height as number);
  t.diagnostic(`blocks committed while the snapshot of ${H} was written: ${during.join(', ')}`);
  assert.ok(during.length >= 1 && during[0] === H + 1, `blocks after ${H} while writing: ${during}`);

  // export on the running A
  const homeA = net!.node('validator0').home;
  const homeB = net!.node('validator1').home;
  archive = join(scratch, `snapshot-${H}.chaindss`);
  const exported = runChaind([
    'snapshots',
    'export',
    '--home',
    homeA,
    '--height',
    String(H),
    '--output',
    archive,
  ]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(
    exported.stdout,
    new RegExp(
      `^exported the snapshot of height ${H} \\(${taken.chunks} chunks, hash [0-9A-F]{64}\\) to ${archive} \\(\\d+ bytes\\)\\n$`,
    ),
  );
  // the operator's refusals: one line on stderr, exit code 1
  const again = runChaind([
    'snapshots',
    'export',
    '--home',
    homeA,
    '--height',
    String(H),
    '--output',
    archive,
  ]);
  assert.deepEqual(
    [again.code, again.stderr],
    [1, `error: ${archive} already exists (--force replaces it)\n`],
  );
  const none = runChaind([
    'snapshots',
    'export',
    '--home',
    homeA,
    '--height',
    '7',
    '--output',
    join(scratch, 'x'),
  ]);
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /^error: no snapshot of height 7 in .*validator0\/data\/snapshots \(chaind snapshots list shows them\)\n$/,
  );
  const bad = runChaind(['snapshots', 'export', '--home', homeA, '--height', 'ten', '--output', archive]);
  assert.deepEqual([bad.code, bad.stderr], [1, 'error: expected a positive integer, got "ten"\n']);

  // restore into the running B, which takes no snapshots of its own
  const listA = runChaind(['snapshots', 'list', '--home', homeA]);
  const lineOf = (out: string) => out.split('\n').find((l) => l.startsWith(`${H}  `));
  assert.equal(
    runChaind(['snapshots', 'list', '--home', homeB]).stdout,
    `no state-sync snapshots in ${join(homeB, 'data', 'snapshots')}\n`,
  );
  const restored = runChaind(['snapshots', 'restore', archive, '--home', homeB]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(
    restored.stdout,
    new RegExp(`^restored the snapshot of height ${H} \\(${taken.chunks} chunks, hash `),
  );
  const listB = runChaind(['snapshots', 'list', '--home', homeB]);
  assert.equal(lineOf(listB.stdout), lineOf(listA.stdout));
  const twice = runChaind(['snapshots', 'restore', archive, '--home', homeB]);
  assert.equal(twice.code, 1);
  assert.match(
    twice.stderr,
    new RegExp(`^error: a snapshot of height ${H} already exists in .* \\(--force replaces it\\)\\n$`),
  );
  const missing = runChaind(['snapshots', 'restore', join(scratch, 'nope'), '--home', homeB]);
  assert.deepEqual(
    [missing.code, missing.stderr],
    [1, `error: cannot open snapshot archive ${join(scratch, 'nope')}: ENOENT\n`],
  );
});

test('a fresh node whose only peer is B state-syncs from the snapshot B got by restore', async (t) => {
  if (!cometbftOrSkip(t) || !H) return;
  await net!.waitHeight('validator0', H + 3, 120_000);
  const node = net!.start('rpc0', await stateSyncFlags(['validator1']));
  const restored = jsonLine(
    await node.waitForLine(msgIs('state restored from a state-sync snapshot'), 180_000),
  )!;
  assert.equal(restored.height, H);
  const accepted = jsonLine(node.lines.find(msgIs('accepted a state-sync snapshot'))!)!;
  assert.equal(accepted.height, H);
  await assertCaughtUpFromSnapshot('rpc0');
});

test('a chunk corrupted in one provider is refused, fetched again from another provider, and the restore completes', async (t) => {
  if (!cometbftOrSkip(t) || !H) return;
  // rpc0 becomes a second provider of the same snapshot: restore into a running node
  const homeRpc0 = net!.node('rpc0').home;
  const r = runChaind(['snapshots', 'restore', archive, '--home', homeRpc0]);
  assert.equal(r.code, 0, r.stderr);
  await net!.stop('rpc0');
  // B's copy gets one damaged chunk, its metadata left intact
  const storeB = new SnapshotStore({
    dir: join(net!.node('validator1').home, 'data', 'snapshots'),
    keepRecent: 1,
  });
  const meta = storeB.meta(H)!;
  const bad = Math.floor(meta.chunks / 2);
  const path = storeB.chunkPath(H, bad);
  const bytes = readFileSync(path);
  bytes[100] ^= 0xff;
  writeFileSync(path, bytes);

  // the restoring node's peers: B, and rpc0, which is down until B's chunk has been refused
  const node = net!.start('rpc1', await stateSyncFlags(['validator1', 'rpc0']));
  const refused = jsonLine(
    await node.waitForLine(msgIs('state-sync chunk does not match its hash; fetching it again'), 180_000),
  )!;
  assert.deepEqual(
    [refused.height, refused.chunk, refused.sender],
    [H, bad, net!.node('validator1').node_id],
  );
  net!.start('rpc0', ['--p2p.persistent-peers', peerOf('validator1'), '--p2p.pex', 'false']);
  const restored = jsonLine(
    await node.waitForLine(msgIs('state restored from a state-sync snapshot'), 180_000),
  )!;
  assert.equal(restored.height, H);
  assert.equal(
    node.lines.filter(msgIs('state-sync chunk does not match its hash; fetching it again')).length,
    1,
  );
  await net!.waitHeight('rpc1', H + 2, 120_000);
  await assertSameStateAt('rpc1', H);
  await net!.stop('rpc1');
});

test('an archive whose EVM store is named evm_flatkv, restored into B with --force, state-syncs a node to the same EVM state', async (t) => {
  if (!cometbftOrSkip(t) || !H) return;
  // rewrite the exported stream: the same items, the EVM store under its legacy name
  const src = await openSnapshotArchive(archive);
  let renamed = 0;
  async function* legacy(): AsyncGenerator<SnapshotItem> {
    for await (const item of readSnapshotItems(src.chunks())) {
      if (item.store?.name === 'evm') {
        renamed++;
        yield { store: { name: 'evm_flatkv' } };
      } else yield item;
    }
  }
  const rewritten = new SnapshotStore({
    dir: join(scratch, 'legacy'),
    keepRecent: 1,
    chunkBytes: CHUNK_BYTES,
  });
  const legacyMeta = await rewritten.write(H, src.meta.appHash, legacy());
  await src.close();
  assert.equal(renamed, 1);
  assert.equal(legacyMeta.items, src.meta.items);
  const legacyArchive = join(scratch, `snapshot-${H}-evm_flatkv.chaindss`);
  const out = await exportSnapshotArchive(rewritten, H, legacyArchive);
  assert.notEqual(Buffer.from(out.hash).toString('hex'), Buffer.from(src.hash).toString('hex'));

  const homeB = net!.node('validator1').home;
  const refused = runChaind(['snapshots', 'restore', legacyArchive, '--home', homeB]);
  assert.equal(refused.code, 1);
  const forced = runChaind(['snapshots', 'restore', legacyArchive, '--home', homeB, '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, new RegExp(`hash ${Buffer.from(out.hash).toString('hex').toUpperCase()}`));

  const node = net!.start('rpc2', await stateSyncFlags(['validator1']));
  const restored = jsonLine(
    await node.waitForLine(msgIs('state restored from a state-sync snapshot'), 180_000),
  )!;
  assert.equal(restored.height, H);
  // the legacy snapshot was the one fetched: its chunk count, from B, its only peer
  assert.equal(
    jsonLine(node.lines.find(msgIs('accepted a state-sync snapshot'))!)!.chunks,
    legacyMeta.chunks,
  );
  await assertCaughtUpFromSnapshot('rpc2');
});

/** Polls `probe` until it answers something, for at most `ms`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('a snapshot deleted on its only provider mid-restore: the node says what it waits for, then stops with the remedy instead of waiting for ever', async (t) => {
  if (!cometbftOrSkip(t) || !H) return;
  const homeB = net!.node('validator1').home;
  // B holds the snapshot of H (restored above) and takes none: the only one the new node can find.
  // Its discovery is longer than the CLI's start, so the snapshot is gone before the restore begins.
  const flags = await stateSyncFlags(['validator1']);
  flags[flags.indexOf('--statesync.discovery-time') + 1] = '10s';
  const node = net!.start('rpc3', flags);
  const discovered = jsonLine(await node.waitForLine(msgIs('Discovered new snapshot'), 180_000))!;
  assert.equal(discovered.height, H);
  // what a chaos harness does to force "snapshot pruned during a restore"
  const del = runChaind(['snapshots', 'delete', '--home', homeB, '--height', String(H)]);
  assert.equal(del.code, 0, del.stderr);
  const accepted = jsonLine(await node.waitForLine(msgIs('accepted a state-sync snapshot'), 120_000))!;
  assert.equal(accepted.height, H);
  const chunks = accepted.chunks as number;

  // while it waits, every health signal says for what, and none says caught up
  const syncing = await until('eth_syncing reports the chunk it waits for', async () => {
    const r = (await net!.evm('rpc3', 'eth_syncing')).result;
    return r?.stateSync?.phase === 'fetching' && r.stateSync.secondsSinceLastChunk !== '0x0' ? r : undefined;
  });
  assert.equal(syncing.halted, false);
  assert.deepEqual(
    [
      syncing.stateSync.snapshotHeight,
      syncing.stateSync.waitingForChunk,
      syncing.stateSync.chunksReceived,
      syncing.stateSync.chunks,
    ],
    [hexHeight(H), '0x0', '0x0', hexHeight(chunks)],
  );
  const waitingFor = new RegExp(
    `^state sync: waiting for chunk 0 of the snapshot of height ${H} \\(0/${chunks} received, \\d+ s since the last chunk`,
  );
  assert.match(syncing.stateSync.description, waitingFor);
  const status = (await net!.consensus('rpc3', '/status')).body.result.sync_info;
  assert.equal(status.catching_up, true);
  assert.deepEqual(
    [status.state_sync.phase, status.state_sync.snapshot_height, status.state_sync.waiting_for_chunk],
    ['fetching', String(H), '0'],
  );
  const lag = await net!.consensus('rpc3', '/lag_status');
  assert.equal(lag.status, 503);
  assert.equal(lag.body.error.message, 'Node is state syncing');
  assert.match(lag.body.error.data, /^current_height 0: state sync: waiting for chunk 0 of the snapshot/);
  // and the log: B answered missing, the node says so and what it waits for
  const missing = jsonLine(
    await node.waitForLine(
      msgIs('state-sync chunk answered missing: the provider no longer has the snapshot'),
      60_000,
    ),
  )!;
  assert.equal(missing.height, H);
  const waitingLine = jsonLine(
    await node.waitForLine(msgIs('state sync waiting for a snapshot chunk'), 60_000),
  )!;
  assert.deepEqual(
    [waitingLine.height, waitingLine.chunk, waitingLine.received, waitingLine.chunks],
    [H, 0, 0, chunks],
  );
  assert.ok(
    net!.processes
      .get('validator1')!
      .lines.some(msgIs('a peer asked for a chunk of a snapshot this node does not have (answered missing)')),
  );

  // then it gives the restore up: one error naming the remedy, and the node stops (exit 1)
  const exit = await Promise.race([
    node.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the stalled restore did not stop the node')), 120_000).unref(),
    ),
  ]);
  assert.equal(exit.code, 1);
  const stalled = node.lines.map(jsonLine).find((j) => /^state sync stalled/.test(j?.msg ?? ''))!;
  assert.match(
    stalled.msg,
    new RegExp(
      `^state sync stalled: no chunk of the snapshot of height ${H} for \\d+ s \\(waiting for chunk 0, 0/${chunks} received\\): ` +
        'its providers answered that they no longer have it .*Raise snapshot-keep-recent on the nodes that provide ' +
        'snapshots, or start this node again to discover newer snapshots$',
    ),
  );
  await net!.stop('rpc3');
});

test('snapshots delete removes one; chaind rollback leaves every snapshot in place', async (t) => {
  if (!cometbftOrSkip(t) || !H) return;
  const homeA = net!.node('validator0').home;
  const list = () => {
    const r = runChaind(['snapshots', 'list', '--home', homeA]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const homeRpc0 = net!.node('rpc0').home;
  const del = runChaind(['snapshots', 'delete', '--home', homeRpc0, '--height', String(H)]);
  assert.deepEqual([del.code, del.stderr], [0, '']);
  assert.match(runChaind(['snapshots', 'list', '--home', homeRpc0]).stdout, /^no state-sync snapshots in /);
  const gone = runChaind(['snapshots', 'delete', '--home', homeRpc0, '--height', String(H)]);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, new RegExp(`^error: no snapshot of height ${H} in .*rpc0/data/snapshots`));

  // rollback of A (the last case: the network stops with one of three validators)
  await net!.stop('validator0');
  const before = list();
  assert.ok(before.split('\n').length >= 3, before);
  const rolled = runChaind(['rollback', '--home', homeA, '-n', '2']);
  assert.equal(rolled.code, 0, rolled.stderr);
  assert.equal(list(), before);
});
