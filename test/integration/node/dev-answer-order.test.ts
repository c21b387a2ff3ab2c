/**
 * On demand, eth_sendRawTransaction answers once a block mined its tx, and the producer's bookkeeping
 * after the commit (signing the precommit, the block's log lines) runs after those answers are on
 * their sockets, while the sender turns around: not in front of them. The node and the client share
 * this process's event loop, so the client reads its answer before the producer's log line exactly
 * when the answer was written first.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { Wallet } from 'ethers';
import { type LogRecord, memoryLogger } from '../../../src/util/logger.ts';
import { DEV_ACCOUNTS, makeHome, startNode } from '../../helpers/node.ts';
import { toHex } from '../../../src/primitives/bytes.ts';

test("on demand, a block's answers go out before the producer's bookkeeping", async (t) => {
  const order: string[] = [];
  const records: LogRecord[] = [];
  records.push = (...r: LogRecord[]) => {
    for (const x of r) if (x.msg === 'committed block') order.push(`logged ${x.fields.height}`);
    return Array.prototype.push.apply(records, r);
  };
  const node = await startNode(
    makeHome(t),
    { 'consensus.timeout-commit': '0s', 'consensus.create-empty-blocks': 'false' },
    memoryLogger(records),
  );
  t.after(() => node.stop());
  const port = Number(new URL(node.modules.evmHttp!.url).port);
  const wallet = new Wallet('0x' + toHex(DEV_ACCOUNTS[0].privateKey));
  const socket = connect(port, '127.0.0.1');
  t.after(() => socket.destroy());
  await new Promise((resolve) => socket.once('connect', resolve));
  const ask = (method: string, params: unknown[]) =>
    new Promise<string>((resolve) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      socket.once('data', (d) => resolve(d.toString('utf8')));
      socket.write(
        `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
    });
  const chainId = BigInt(JSON.parse((await ask('eth_chainId', [])).split('\r\n\r\n')[1]).result);
  for (let nonce = 0; nonce < 3; nonce++) {
    const raw = await wallet.signTransaction({
      chainId,
      nonce,
      to: wallet.address,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 12n,
      maxPriorityFeePerGas: 1n,
    });
    const answer = await ask('eth_sendRawTransaction', [raw]);
    assert.match(answer, /"result":"0x[0-9a-f]{64}"/);
    order.push(`answered ${node.modules.chain.latestHeight}`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the block's bookkeeping is done
  }
  const mined = order.filter((e) => e.startsWith('answered')).map((e) => e.split(' ')[1]);
  for (const h of mined)
    assert.ok(
      order.indexOf(`answered ${h}`) < order.indexOf(`logged ${h}`),
      `block ${h}: ${order.join(', ')}`,
    );
});
