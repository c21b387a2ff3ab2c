import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Interface, getCreateAddress, parseEther, Wallet } from 'ethers';
import { FEE_COLLECTOR_ADDRESS } from '../../../src/app/evm.ts';
import type { ChainNode } from '../../../src/node/node.ts';
import { DEV_ACCOUNTS, makeHome, startNode, until } from '../../helpers/node.ts';
import { artifacts } from '../../helpers/dev-chain.ts';

const GWEI = 10n ** 9n;
const wallets = DEV_ACCOUNTS.map((a) => new Wallet('0x' + Buffer.from(a.privateKey).toString('hex')));
const token = new Interface(artifacts.TestToken.abi);
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));

async function send(node: ChainNode, wallet: Wallet, tx: Record<string, unknown>) {
  const raw = bytes(await wallet.signTransaction({ chainId: 713714n, ...tx }));
  const decoded = await node.modules.mempool.checkTx(raw);
  // The block store is written first in the pipeline: a receipt is served once its height is committed.
  return until(() => {
    const r = node.modules.blocks.receiptByEvmHash(decoded.hash);
    return r && r.height <= node.modules.chain.latestHeight ? r : undefined;
  });
}

function appHashes(node: ChainNode): string[] {
  const out: string[] = [];
  for (let h = 1; h <= node.modules.chain.latestHeight; h++)
    out.push(Buffer.from(node.modules.blocks.blockByHeight(h)!.header.appHash).toString('hex'));
  return out;
}

test('transfers of every type and an ERC20 execute in produced blocks; state is readable at every height and survives a restart', async (t) => {
  const home = makeHome(t);
  let node = await startNode(home);
  t.after(() => node.stop());
  const [alice, bob, carol] = DEV_ACCOUNTS;
  const h0 = node.modules.chain.latestHeight;

  const r1559 = await send(node, wallets[0], {
    type: 2,
    to: wallets[1].address,
    value: parseEther('1'),
    nonce: 0,
    gasLimit: 21000,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
  const rLegacy = await send(node, wallets[0], {
    type: 0,
    to: wallets[2].address,
    value: parseEther('2'),
    nonce: 1,
    gasLimit: 21000,
    gasPrice: 5n * GWEI,
  });
  const r2930 = await send(node, wallets[1], {
    type: 1,
    to: wallets[2].address,
    value: 3n,
    nonce: 0,
    gasLimit: 30000,
    gasPrice: 5n * GWEI,
    accessList: [],
  });
  for (const r of [r1559, rLegacy, r2930]) assert.equal(r.receipt.status, 1);

  const deploy = await send(node, wallets[0], {
    type: 2,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
    nonce: 2,
    gasLimit: 2_000_000,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: 0n,
  });
  const tokenAddress = getCreateAddress({ from: wallets[0].address, nonce: 2 });
  assert.equal(
    '0x' + Buffer.from(deploy.receipt.contractAddress!).toString('hex'),
    tokenAddress.toLowerCase(),
  );
  const tx1 = await send(node, wallets[0], {
    type: 2,
    to: tokenAddress,
    data: token.encodeFunctionData('transfer', [wallets[1].address, 10n]),
    nonce: 3,
    gasLimit: 100_000,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: 0n,
  });
  const tx2 = await send(node, wallets[0], {
    type: 2,
    to: tokenAddress,
    data: token.encodeFunctionData('transfer', [wallets[2].address, 20n]),
    nonce: 4,
    gasLimit: 100_000,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: 0n,
  });
  assert.equal(tx1.receipt.logs.length, 1);
  assert.equal(tx2.receipt.status, 1);

  const latest = node.modules.chain.latestHeight;
  const now = node.modules.chain.stateAt(latest);
  const before = node.modules.chain.stateAt(h0);
  const start = parseEther('10000');
  const fee1559 = r1559.receipt.gasUsed * r1559.receipt.effectiveGasPrice;
  assert.equal(r1559.receipt.effectiveGasPrice, 2n * GWEI, 'base fee 1 gwei + 1 gwei tip');
  assert.equal(await before.balance(bob.evmAddress), start);
  assert.equal(
    await now.balance(bob.evmAddress),
    start + parseEther('1') - r2930.receipt.gasUsed * 5n * GWEI - 3n,
  );
  assert.equal(await now.balance(carol.evmAddress), start + parseEther('2') + 3n);
  assert.equal(await now.nonce(alice.evmAddress), 5n);
  assert.equal(await before.nonce(alice.evmAddress), 0n);
  // At the height of the first transfer, bob already has his ether but the token does not exist yet.
  const atTransfer = node.modules.chain.stateAt(r1559.height);
  assert.equal(await atTransfer.balance(bob.evmAddress), start + parseEther('1'));
  assert.equal((await atTransfer.code(bytes(tokenAddress))).length, 0);
  assert.deepEqual(await now.code(bytes(tokenAddress)), bytes(artifacts.TestToken.deployedBytecode));
  // balanceOf[wallets[1]] lives at keccak(pad(addr) ‖ pad(slot 3)): read it as the EVM does.
  const { keccak256, AbiCoder } = await import('ethers');
  const slot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [wallets[1].address, 3]));
  assert.equal(
    BigInt('0x' + Buffer.from(await now.storage(bytes(tokenAddress), bytes(slot))).toString('hex')),
    10n,
  );
  assert.equal(
    BigInt(
      '0x' +
        Buffer.from(
          await node.modules.chain.stateAt(deploy.height).storage(bytes(tokenAddress), bytes(slot)),
        ).toString('hex'),
    ),
    0n,
  );
  const collected = await now.balance(FEE_COLLECTOR_ADDRESS);
  const allReceipts = [r1559, rLegacy, r2930, deploy, tx1, tx2].map((r) => r.receipt);
  assert.equal(
    collected,
    allReceipts.reduce((s, r) => s + r.gasUsed * r.effectiveGasPrice, 0n),
  );
  assert.ok(fee1559 > 0n);

  const hashes = appHashes(node);
  const bobNow = await now.balance(bob.evmAddress);
  await node.stop();
  node = await startNode(home, { 'consensus.create-empty-blocks': 'false' });
  assert.equal(node.modules.chain.latestHeight, latest);
  assert.deepEqual(appHashes(node), hashes);
  assert.equal(await node.modules.chain.stateAt(latest).balance(bob.evmAddress), bobNow);
  assert.equal(await node.modules.chain.stateAt(h0).balance(bob.evmAddress), start);
});
