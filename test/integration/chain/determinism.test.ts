import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Interface, Wallet } from 'ethers';
import type { StateCommitment } from '../../../src/app/genesis.ts';
import { openBlockStore } from '../../../src/storage/blocks/store.ts';
import { artifacts } from '../../helpers/dev-chain.ts';
import { DEV_ACCOUNTS, makeHome, startNode, until } from '../../helpers/node.ts';

const GWEI = 10n ** 9n;
const wallets = DEV_ACCOUNTS.map((a) => new Wallet('0x' + Buffer.from(a.privateKey).toString('hex')));
const token = new Interface(artifacts.TestToken.abi);
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));

for (const commitment of ['flatkv', 'iavl'] as StateCommitment[]) {
  test(`replaying a chain's blocks into a fresh home reproduces every app hash (${commitment})`, async (t) => {
    const homeA = makeHome(t, commitment);
    const a = await startNode(homeA);
    let lastHash: Uint8Array | undefined;
    try {
      // A mix of transfers and contract calls from several senders, spread over several blocks.
      const raws: Uint8Array[] = [];
      raws.push(
        bytes(
          await wallets[0].signTransaction({
            chainId: 713714n,
            type: 2,
            nonce: 0,
            gasLimit: 2_000_000,
            maxFeePerGas: 10n * GWEI,
            maxPriorityFeePerGas: 0n,
            data: artifacts.TestToken.bytecode + token.encodeDeploy(['T', 'T', 10n ** 6n]).slice(2),
          }),
        ),
      );
      for (let i = 1; i <= 5; i++) {
        raws.push(
          bytes(
            await wallets[i].signTransaction({
              chainId: 713714n,
              type: 2,
              nonce: 0,
              to: wallets[(i + 1) % 10].address,
              value: BigInt(i) * 10n ** 15n,
              gasLimit: 21000,
              maxFeePerGas: 10n * GWEI,
              maxPriorityFeePerGas: BigInt(i),
            }),
          ),
        );
      }
      for (const raw of raws) await a.modules.mempool.checkTx(raw);
      const deployed = await until(() =>
        a.modules.blocks.receiptByEvmHash(a.modules.chain.decode(raws[0]).hash),
      );
      const tokenAddress = deployed.receipt.contractAddress!;
      for (let n = 1; n <= 4; n++) {
        const raw = bytes(
          await wallets[0].signTransaction({
            chainId: 713714n,
            type: 2,
            nonce: n,
            to: '0x' + Buffer.from(tokenAddress).toString('hex'),
            data: token.encodeFunctionData('transfer', [wallets[n].address, 7n]),
            gasLimit: 100_000,
            maxFeePerGas: 10n * GWEI,
            maxPriorityFeePerGas: 0n,
          }),
        );
        await a.modules.mempool.checkTx(raw);
        await until(
          () =>
            a.modules.blocks.receiptByEvmHash(a.modules.chain.decode(raw).hash) &&
            a.modules.chain.latestHeight,
        );
      }
      await until(() => a.modules.chain.latestHeight >= 8);
    } finally {
      await a.stop();
    }
    const blocksA = await openBlockStore({ dataDir: join(homeA, 'data') });
    const top = blocksA.latestHeight()!;

    // Home B: the same genesis, a different validator key (so it only replays), blocks copied in.
    const homeB = makeHome(t, commitment);
    copyFileSync(join(homeA, 'config', 'genesis.json'), join(homeB, 'config', 'genesis.json'));
    const blocksB = await openBlockStore({ dataDir: join(homeB, 'data') });
    let txCount = 0;
    for (let h = 1; h <= top; h++) {
      const block = blocksA.blockByHeight(h)!;
      txCount += block.txs.length;
      await blocksB.putBlock(block, blocksA.receiptsOfBlock(h) ?? [], []);
    }
    await blocksB.close();
    await blocksA.close();
    assert.ok(txCount >= 10, `only ${txCount} txs were produced`);

    const aFinal = await startNode(homeA, { 'consensus.create-empty-blocks': 'false' });
    lastHash = aFinal.modules.chain.appHash;
    assert.equal(aFinal.modules.chain.latestHeight, top);
    await aFinal.stop();

    // Opening B replays blocks 1..top; each block's header app hash is checked against the replayed state.
    const b = await startNode(homeB);
    try {
      assert.equal(b.modules.chain.latestHeight, top);
      assert.deepEqual(b.modules.chain.appHash, lastHash);
    } finally {
      await b.stop();
    }
  });
}
