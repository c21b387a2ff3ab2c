/**
 * A node whose disk fills loses nothing. A validator and an RPC node whose data directory is a small
 * tmpfs; a ballast file leaves it almost full and transfers fill the rest. Whatever write fails first
 * (CometBFT's consensus WAL or block store, or one of chaind's stores), the RPC node stops committing
 * with one line naming the directory, stays up reporting itself halted on every health signal and
 * never current, and after the ballast is removed and it is restarted it catches up from the
 * validator with every receipt served before unchanged and the same app hashes. The single-process
 * dev chain (the embedded producer) does the same on its own.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { Wallet } from 'ethers';
import { ChaindProcess, tempHome } from '../helpers/chaind.ts';
import { mountSmallDataDir, smallDiskUnavailable } from '../helpers/disk.ts';
import { cometbftOrSkip, TestNetwork } from '../helpers/network.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';

const DEADLINE = 120_000;
const OUT_OF_DISK =
  /^no space left on device writing (\/.+): free space and restart; nothing committed after height (\d+) is lost$/;
const json = (line: string) => JSON.parse(line) as Record<string, any>;
const isOutOfDiskLine = (l: string) => l.startsWith('{') && OUT_OF_DISK.test(String(json(l).msg));
const outOfDiskLines = (lines: string[]) => lines.filter(isOutOfDiskLine);

/** Polls `read` until `ok` holds for its value, within `ms`; returns that value. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = DEADLINE) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in time; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a node whose disk fills stops committing with one line naming the directory, reports itself halted, and after space is freed catches up with nothing lost', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const unavailable = smallDiskUnavailable();
  if (unavailable) return t.skip(`${unavailable}: the test puts a node's data directory on a small tmpfs`);

  const net = await TestNetwork.create(t, { validators: 1, rpcNodes: 1 });
  const home = net.node('rpc0').home;
  const dataDir = join(home, 'data');
  const disk = mountSmallDataDir(t, home, 64);
  net.start('validator0');
  let rpc = net.start('rpc0');
  await net.waitHeight('validator0', 2, DEADLINE);
  await until(
    async () => [await net.height('rpc0'), await net.height('validator0')],
    ([r, v]) => r >= 2 && v - r <= 2,
    'rpc0 caught up',
  );

  // transfers with calldata, so that each block holds something to write
  const chainId = BigInt((await net.evm('validator0', 'eth_chainId')).result);
  const wallet = new Wallet('0x' + Buffer.from(DEV_ACCOUNTS[1].privateKey).toString('hex'));
  let nonce = Number(
    (await net.evm('validator0', 'eth_getTransactionCount', [wallet.address, 'pending'])).result,
  );
  const sent: string[] = [];
  const send = async () => {
    const raw = await wallet.signTransaction({
      type: 2,
      chainId,
      nonce,
      to: '0x' + '11'.repeat(20),
      value: 1n,
      data: '0x' + 'ab'.repeat(2_000),
      gasLimit: 200_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1n,
    });
    const r = await net.evm('validator0', 'eth_sendRawTransaction', [raw]);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    nonce++;
    sent.push(r.result);
  };
  /** The receipts `node` serves for every tx sent so far, once it serves them all. */
  const receipts = (node: string) =>
    until(
      () =>
        Promise.all(sent.map(async (h) => (await net.evm(node, 'eth_getTransactionReceipt', [h])).result)),
      (rs) => rs.every((r) => r),
      `${node} serves every receipt`,
    );

  for (let i = 0; i < 5; i++) await send();
  const before = await receipts('validator0');
  assert.deepEqual(await receipts('rpc0'), before);

  // fill the disk: a ballast leaves a little room, and transfers fill that
  disk.fill(256 * 1024);
  const full = rpc.waitForLine(isOutOfDiskLine, DEADLINE);
  let line: string | undefined;
  let missing: unknown;
  full.then(
    (l) => (line = l),
    (err: unknown) => (missing = err),
  );
  while (line === undefined) {
    if (missing) throw missing;
    await send();
    await new Promise((r) => setTimeout(r, 20));
  }
  const record = json(line);
  const [, dir, h] = OUT_OF_DISK.exec(record.msg)!;
  const height = Number(h);
  t.diagnostic(`out of disk at height ${height}: ${record.msg}`);
  assert.equal(record.level, 'error');
  assert.ok(dir.startsWith(dataDir), `${dir} is in the data directory ${dataDir}`);

  // every health signal says halted, with the line as the reason; the node stays up
  const status = await until(
    () => net.consensus('rpc0', '/status'),
    (s) => s.status === 200 && s.body.result?.sync_info?.halted === true,
    '/status halted',
  );
  assert.equal(status.body.result.sync_info.catching_up, true);
  assert.equal(status.body.result.sync_info.halt_reason, record.msg);
  const lag = await net.consensus('rpc0', '/lag_status');
  assert.equal(lag.status, 503);
  assert.equal(lag.body.error.message, 'Node is halted');
  assert.match(lag.body.error.data, /no space left on device writing /);
  const syncing = (await net.evm('rpc0', 'eth_syncing')).result;
  assert.equal(syncing.halted, true);
  assert.equal(syncing.haltReason, record.msg);
  const metrics = await (await fetch(`http://127.0.0.1:${net.node('rpc0').ports.metrics}/metrics`)).text();
  assert.match(metrics, /^tendermint_consensus_height_status\{chain_id="[^"]+"\} 0$/m);
  // nothing is committed past the height the line names, while the validator moves on
  const top = await net.height('validator0');
  await net.waitHeight('validator0', top + 3, DEADLINE);
  assert.equal(await net.height('rpc0'), height);
  assert.equal((await net.evm('rpc0', 'eth_syncing')).result.halted, true);
  assert.equal(rpc.child.exitCode, null, 'the node stays up');
  assert.equal(outOfDiskLines(rpc.lines).length, 1, 'the line is logged once');

  // free the space and restart: the node recovers its stores and catches up from the validator
  // (a store that cannot flush on the way out makes the stop unclean, exit code 1: its log has it)
  const stopped = await net.stop('rpc0');
  assert.equal(stopped?.signal, null, 'it exits on its own after SIGTERM');
  assert.ok(!rpc.lines.some((l) => l.includes('did not stop in time')), 'every service stops promptly');
  disk.release();
  const confirmed = await receipts('validator0');
  rpc = net.start('rpc0');
  await rpc.waitForLine((l) => l.includes('"msg":"chain opened"'), DEADLINE);
  const target = await net.height('validator0');
  await net.waitHeight('rpc0', target, DEADLINE);
  assert.deepEqual(await receipts('rpc0'), confirmed, 'every receipt served before, unchanged');
  for (let i = 0; i < before.length; i++) assert.deepEqual(confirmed[i], before[i]);
  for (let h = 1; h <= target; h++)
    assert.deepEqual(await net.blockId('rpc0', h), await net.blockId('validator0', h), `block ${h}`);
  // every tx of every block is found by its hash on the consensus RPC, as on the validator
  for (let h = 1; h <= target; h++) {
    const txs: string[] =
      (await net.consensus('validator0', `/block?height=${h}`)).body.result.block.data.txs ?? [];
    for (const tx of txs) {
      const hash = createHash('sha256').update(Buffer.from(tx, 'base64')).digest('hex');
      const found = await net.consensus('rpc0', `/tx?hash=0x${hash}`);
      assert.equal(
        found.body.result?.height,
        String(h),
        `tx ${hash} of block ${h}: ${JSON.stringify(found.body)}`,
      );
    }
  }
  const after = (await net.consensus('rpc0', '/status')).body.result.sync_info;
  assert.equal(after.halted, false);
  assert.equal(outOfDiskLines(rpc.lines).length, 0);
  assert.ok(!rpc.lines.some((l) => l.includes('wrong Block.Header.AppHash')));
});

/** A spawned node's EVM JSON-RPC and consensus RPC, from the lines its listeners log. */
async function listeners(node: ChaindProcess) {
  const address = async (msg: string) =>
    json(await node.waitForLine((l) => l.includes(`"msg":"${msg}"`), DEADLINE)).address as string;
  return {
    evm: await address('JSON-RPC server listening'),
    rpc: (await address('consensus RPC listening')).replace(/^tcp:/, 'http:'),
  };
}

async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.json();
}

test('a dev chain whose disk fills stops producing with the one line, reports itself halted, and after a restart holds every block it served', async (t) => {
  const unavailable = smallDiskUnavailable();
  if (unavailable) return t.skip(`${unavailable}: the test puts a node's data directory on a small tmpfs`);
  const home = tempHome(t);
  const disk = mountSmallDataDir(t, home, 32);
  const flags = ['--home', home, '--log_format', 'json'];
  let node = new ChaindProcess(['dev', ...flags]);
  t.after(() => node.stop('SIGKILL'));
  let { evm, rpc } = await listeners(node);

  const chainId = BigInt((await call(evm, 'eth_chainId')).result);
  const wallet = new Wallet('0x' + Buffer.from(DEV_ACCOUNTS[2].privateKey).toString('hex'));
  let nonce = Number((await call(evm, 'eth_getTransactionCount', [wallet.address, 'pending'])).result);
  const sent: string[] = [];
  const send = async () => {
    const raw = await wallet.signTransaction({
      type: 2,
      chainId,
      nonce,
      to: '0x' + '22'.repeat(20),
      value: 1n,
      data: '0x' + 'cd'.repeat(2_000),
      gasLimit: 200_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1n,
    });
    const r = await call(evm, 'eth_sendRawTransaction', [raw]);
    if (r.error) return false;
    nonce++;
    sent.push(r.result);
    return true;
  };
  const receipt = async (h: string) => (await call(evm, 'eth_getTransactionReceipt', [h])).result;

  for (let i = 0; i < 3; i++) assert.ok(await send());
  const served = await until(
    () => Promise.all(sent.map(receipt)),
    (rs) => rs.every((r) => r),
    'the first receipts',
  );

  disk.fill(128 * 1024);
  const full = node.waitForLine(isOutOfDiskLine, DEADLINE);
  let line: string | undefined;
  let missing: unknown;
  full.then(
    (l) => (line = l),
    (err: unknown) => (missing = err),
  );
  while (line === undefined) {
    if (missing) throw missing;
    await send();
    await new Promise((r) => setTimeout(r, 20));
  }
  const record = json(line);
  const [, dir, h] = OUT_OF_DISK.exec(record.msg)!;
  const height = Number(h);
  t.diagnostic(`dev chain out of disk at height ${height}: ${record.msg}`);
  assert.ok(dir.startsWith(join(home, 'data')), dir);

  const status = await until(
    async () => (await fetch(`${rpc}/status`)).json() as Promise<any>,
    (s) => s.result?.sync_info?.halted === true,
    '/status halted',
  );
  assert.equal(status.result.sync_info.catching_up, true);
  assert.equal(status.result.sync_info.halt_reason, record.msg);
  assert.equal((await call(evm, 'eth_syncing')).result.haltReason, record.msg);
  assert.equal(Number((await call(evm, 'eth_blockNumber')).result), height);
  // every receipt the node served, and every block it committed, as it served them then
  const receipts = (await Promise.all(sent.map(receipt))).filter((r) => r);
  assert.ok(receipts.length >= served.length);
  const blocks = await Promise.all(
    Array.from(
      { length: height },
      async (_, i) => (await call(evm, 'eth_getBlockByNumber', ['0x' + (i + 1).toString(16), false])).result,
    ),
  );
  assert.equal(node.child.exitCode, null, 'the node stays up');
  assert.equal(outOfDiskLines(node.lines).length, 1, 'the line is logged once');
  await node.stopWithin(30_000);

  disk.release();
  node = new ChaindProcess(['start', ...flags]);
  ({ evm } = await listeners(node));
  for (const r of receipts) assert.deepEqual(await receipt(r.transactionHash), r);
  for (const b of blocks)
    assert.deepEqual(
      (await call(evm, 'eth_getBlockByNumber', [b.number, false])).result,
      b,
      `block ${b.number}`,
    );
  // and it produces again (the txs the pool held when the disk filled went with the process)
  nonce = Number((await call(evm, 'eth_getTransactionCount', [wallet.address, 'latest'])).result);
  assert.ok(await send());
  await until(
    () => receipt(sent[sent.length - 1]),
    (r) => r,
    'a new block after the restart',
  );
  assert.equal(outOfDiskLines(node.lines).length, 0);
});
