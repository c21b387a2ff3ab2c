import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Interface, getCreateAddress, parseEther } from 'ethers';
import { Bank } from '../../../src/app/bank.ts';
import { Evm, FEE_COLLECTOR_ADDRESS } from '../../../src/app/evm.ts';
import { BlockExecutor, type EthTxOutcome, isRejection } from '../../../src/execution/block-executor.ts';
import { createChainCommon } from '../../../src/execution/chain-config.ts';
import { decodeEthTransaction } from '../../../src/execution/transactions.ts';
import {
  artifacts,
  CHAIN_ID,
  devAccounts,
  devBlockEnv,
  devState,
  devWallets,
  signed,
} from '../../helpers/dev-chain.ts';

const common = createChainCommon({ chainId: CHAIN_ID });
const GWEI = 10n ** 9n;
const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');

async function executor(overlay: ReturnType<typeof devState>['overlay'], height = 1n) {
  return BlockExecutor.create(common, devBlockEnv({ height }), overlay);
}

async function run(ex: BlockExecutor, raw: Uint8Array): Promise<EthTxOutcome> {
  const r = await ex.execute(decodeEthTransaction(raw, common));
  if (isRejection(r)) assert.fail(`rejected: ${r.reason}`);
  return r;
}

test('an EIP-1559 transfer moves value, charges the full fee to the fee collector, and bumps the nonce', async () => {
  const { overlay } = devState();
  const ex = await executor(overlay);
  const [alice, bob] = devAccounts;
  const bank = new Bank(overlay);
  const evm = new Evm(overlay);
  const before = bank.wei(alice.cosmosAddress);
  const out = await run(
    ex,
    await signed(devWallets[0], {
      type: 2,
      to: hex(bob.evmAddress),
      value: parseEther('1.5'),
      nonce: 0,
      gasLimit: 21000,
      maxFeePerGas: 3n * GWEI,
      maxPriorityFeePerGas: GWEI,
    }),
  );
  assert.equal(out.status, 1);
  assert.equal(out.gasUsed, 21000n);
  assert.equal(out.effectiveGasPrice, 2n * GWEI);
  const fee = 21000n * 2n * GWEI;
  assert.equal(bank.wei(alice.cosmosAddress), before - parseEther('1.5') - fee);
  assert.equal(bank.wei(bob.cosmosAddress), before + parseEther('1.5'));
  assert.equal(bank.wei(FEE_COLLECTOR_ADDRESS), fee, 'base fee and tip both go to the fee collector');
  assert.equal(evm.nonce(alice.evmAddress), 1n);
});

test('legacy (EIP-155) and EIP-2930 transfers execute; a stale nonce is rejected without side effects', async () => {
  const { overlay } = devState();
  const ex = await executor(overlay);
  const bob = devAccounts[1];
  const legacy = await run(
    ex,
    await signed(devWallets[0], {
      type: 0,
      to: hex(bob.evmAddress),
      value: 1n,
      nonce: 0,
      gasLimit: 21000,
      gasPrice: 2n * GWEI,
    }),
  );
  assert.equal(legacy.status, 1);
  const al = await run(
    ex,
    await signed(devWallets[0], {
      type: 1,
      to: hex(bob.evmAddress),
      value: 1n,
      nonce: 1,
      gasLimit: 30000,
      gasPrice: 2n * GWEI,
      accessList: [{ address: hex(bob.evmAddress), storageKeys: [] }],
    }),
  );
  assert.equal(al.status, 1);
  assert.equal(al.gasUsed, 21000n + 2400n);
  assert.equal(al.cumulativeGasUsed, 21000n + 23400n);
  const size = overlay.size;
  const stale = await ex.execute(
    decodeEthTransaction(
      await signed(devWallets[0], {
        type: 2,
        to: hex(bob.evmAddress),
        value: 1n,
        nonce: 0,
        gasLimit: 21000,
        maxFeePerGas: 2n * GWEI,
        maxPriorityFeePerGas: 0n,
      }),
      common,
    ),
  );
  assert.ok(isRejection(stale));
  assert.match(stale.reason, /nonce/);
  assert.equal(overlay.size, size);
  assert.equal(ex.blockGasUsed, 44400n);
});

test('ERC20 deploy and transfers: storage, logs, revert with custom error', async () => {
  const { overlay } = devState();
  const ex = await executor(overlay);
  const token = new Interface(artifacts.TestToken.abi);
  const deployer = devWallets[0];
  const deployData = artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1_000_000n]).slice(2);
  const deploy = await run(
    ex,
    await signed(deployer, {
      type: 2,
      data: deployData,
      nonce: 0,
      gasLimit: 2_000_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
    }),
  );
  assert.equal(deploy.status, 1);
  const address = getCreateAddress({ from: deployer.address, nonce: 0 });
  assert.equal(hex(deploy.contractAddress!), address.toLowerCase());
  assert.equal(deploy.logs.length, 1);

  const evm = new Evm(overlay);
  assert.ok(evm.hasCode(deploy.contractAddress!));
  const transfer = await run(
    ex,
    await signed(deployer, {
      type: 2,
      to: address,
      data: token.encodeFunctionData('transfer', [devWallets[1].address, 250n]),
      nonce: 1,
      gasLimit: 100_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
    }),
  );
  assert.equal(transfer.status, 1);
  const [log] = transfer.logs;
  const parsed = token.parseLog({ topics: log.topics.map(hex), data: hex(log.data) })!;
  assert.equal(parsed.name, 'Transfer');
  assert.deepEqual(
    [parsed.args[0], parsed.args[1], parsed.args[2]],
    [deployer.address, devWallets[1].address, 250n],
  );

  const tooMuch = await run(
    ex,
    await signed(devWallets[1], {
      type: 2,
      to: address,
      data: token.encodeFunctionData('transfer', [deployer.address, 251n]),
      nonce: 0,
      gasLimit: 100_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
    }),
  );
  assert.equal(tooMuch.status, 0);
  assert.equal(tooMuch.error, 'revert');
  assert.deepEqual(token.parseError(hex(tooMuch.returnData))!.args.toArray(), [250n, 251n]);
  assert.equal(tooMuch.logs.length, 0);
});

test("a sender's first tx associates its addresses and moves the cast balance", async () => {
  const { overlay } = devState({ associate: false });
  const ex = await executor(overlay);
  const bank = new Bank(overlay);
  const evm = new Evm(overlay);
  const [alice, bob] = devAccounts;
  // Before association, alice's EVM balance is her cast's: empty. Fund the cast with a transfer from bob.
  bank.setWei(bob.evmAddress, parseEther('5'));
  assert.equal(evm.cosmosAddressOf(bob.evmAddress), undefined);
  const out = await run(
    ex,
    await signed(devWallets[1], {
      type: 2,
      to: hex(alice.evmAddress),
      value: parseEther('1'),
      nonce: 0,
      gasLimit: 21000,
      maxFeePerGas: GWEI,
      maxPriorityFeePerGas: 0n,
    }),
  );
  assert.equal(out.status, 1);
  assert.deepEqual(evm.cosmosAddressOf(bob.evmAddress), bob.cosmosAddress);
  assert.deepEqual(evm.evmAddressOf(bob.cosmosAddress), bob.evmAddress);
  assert.equal(bank.wei(bob.evmAddress), 0n, 'cast emptied');
  assert.equal(
    bank.wei(bob.cosmosAddress),
    10_000n * 10n ** 18n + parseEther('5') - parseEther('1') - 21000n * GWEI,
  );
  assert.equal(
    bank.wei(alice.evmAddress),
    parseEther('1'),
    'alice is unassociated: the value lands on her cast',
  );
});

async function deploy(ex: BlockExecutor, name: string, nonce: number): Promise<string> {
  const out = await run(
    ex,
    await signed(devWallets[0], {
      type: 2,
      data: artifacts[name].bytecode,
      nonce,
      gasLimit: 1_000_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
    }),
  );
  assert.equal(out.status, 1);
  return hex(out.contractAddress!);
}

test('EIP-7702: an EOA delegates to a contract; calls run its code on the EOA storage', async () => {
  const { overlay } = devState();
  const ex = await executor(overlay);
  const counter = await deploy(ex, 'Counter', 0);
  const iface = new Interface(artifacts.Counter.abi);
  const eoa = devWallets[2];
  const auth = await eoa.authorize({ address: counter, nonce: 0, chainId: CHAIN_ID });
  const setCode = await run(
    ex,
    await signed(devWallets[0], {
      type: 4,
      to: eoa.address,
      data: iface.encodeFunctionData('increment'),
      nonce: 1,
      gasLimit: 200_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
      authorizationList: [auth],
    }),
  );
  assert.equal(setCode.status, 1);
  const evm = new Evm(overlay);
  const eoaBytes = Uint8Array.from(Buffer.from(eoa.address.slice(2), 'hex'));
  assert.equal(hex(evm.code(eoaBytes)), '0xef0100' + counter.slice(2).toLowerCase(), 'delegation designator');
  assert.equal(evm.nonce(eoaBytes), 1n, 'the authorization bumps the authority nonce');
  assert.equal(evm.storage(eoaBytes, new Uint8Array(32))[31], 1, 'increment wrote the EOA storage');
  const again = await run(
    ex,
    await signed(devWallets[1], {
      type: 2,
      to: eoa.address,
      data: iface.encodeFunctionData('increment'),
      nonce: 0,
      gasLimit: 100_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
    }),
  );
  assert.equal(again.status, 1);
  assert.equal(evm.storage(eoaBytes, new Uint8Array(32))[31], 2);
  const counterBytes = Uint8Array.from(Buffer.from(counter.slice(2), 'hex'));
  assert.equal(
    evm.storage(counterBytes, new Uint8Array(32))[31] ?? 0,
    0,
    'the delegate keeps its own storage untouched',
  );
});

test('EIP-1153: transient storage lives for one transaction', async () => {
  const { overlay } = devState();
  const ex = await executor(overlay);
  const probe = await deploy(ex, 'TransientProbe', 0);
  const iface = new Interface(artifacts.TransientProbe.abi);
  const evm = new Evm(overlay);
  const probeBytes = Uint8Array.from(Buffer.from(probe.slice(2), 'hex'));
  const first = await run(
    ex,
    await signed(devWallets[0], {
      type: 2,
      to: probe,
      data: iface.encodeFunctionData('storeAndLoad', [42n]),
      nonce: 1,
      gasLimit: 100_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
    }),
  );
  assert.equal(first.status, 1);
  assert.equal(evm.storage(probeBytes, new Uint8Array(32))[31], 42);
  const second = await run(
    ex,
    await signed(devWallets[0], {
      type: 2,
      to: probe,
      data: iface.encodeFunctionData('loadOnly'),
      nonce: 2,
      gasLimit: 100_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
    }),
  );
  assert.equal(second.status, 1);
  assert.equal(
    evm.storage(probeBytes, new Uint8Array(32))[31] ?? 0,
    0,
    'a new transaction sees empty transient storage',
  );
});

test("executors leave no listener on the chain's shared Common (each kept its VM alive)", async () => {
  for (let i = 0; i < 5; i++) await executor(devState().overlay, BigInt(i + 1));
  assert.equal(common.events.listenerCount('hardforkChanged'), 0);
});

test('a released VM serves the next block with nothing of the last one: its state and its BLOCKHASH', async () => {
  // init code: SSTORE(0, BLOCKHASH(NUMBER - 1)), no runtime code
  const storeParentHash = '0x600143034060005500';
  const runBlock = async (parentHash: number) => {
    const { overlay } = devState();
    const ex = await BlockExecutor.create(
      common,
      devBlockEnv({
        height: 7n,
        blockHash: (n) => (n === 6n ? new Uint8Array(32).fill(parentHash) : undefined),
      }),
      overlay,
    );
    const tx = {
      type: 2,
      data: storeParentHash,
      gasLimit: 100_000,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: 0n,
    };
    const out = await run(ex, await signed(devWallets[0], { ...tx, nonce: 0 }));
    ex.release();
    await assert.rejects(
      ex.execute(decodeEthTransaction(await signed(devWallets[0], { ...tx, nonce: 1 }), common)),
      /used after its VM was released/,
    );
    return new Evm(overlay).storage(out.contractAddress!, new Uint8Array(32));
  };
  assert.deepEqual(await runBlock(0xaa), new Uint8Array(32).fill(0xaa));
  assert.deepEqual(await runBlock(0xbb), new Uint8Array(32).fill(0xbb));
});

test('collectAddresses: every caller, callee and code address below the top call, created contracts, selfdestruct beneficiaries', async () => {
  const { overlay } = devState();
  const ex = await executor(overlay);
  const fee = { type: 2, maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 3_000_000 };
  const w = devWallets[0];
  const probe = new Interface(artifacts.TraceProbe.abi);
  const doomed = new Interface(artifacts.ReplayDoomed.abi);
  const targetAt = getCreateAddress({ from: w.address, nonce: 0 });
  const probeAt = getCreateAddress({ from: w.address, nonce: 1 });
  const doomedAt = getCreateAddress({ from: w.address, nonce: 2 });
  await run(ex, await signed(w, { ...fee, nonce: 0, data: artifacts.TraceTarget.bytecode }));
  await run(
    ex,
    await signed(w, {
      ...fee,
      nonce: 1,
      data: artifacts.TraceProbe.bytecode + probe.encodeDeploy([targetAt]).slice(2),
    }),
  );
  await run(ex, await signed(w, { ...fee, nonce: 2, value: 9n, data: artifacts.ReplayDoomed.bytecode }));
  const opts = { collectAddresses: true };
  const decode = (raw: Uint8Array) => decodeEthTransaction(raw, common);
  const lowerSet = (xs: Uint8Array[] | undefined) => new Set((xs ?? []).map(hex));

  const nested = await ex.execute(
    decode(await signed(w, { ...fee, nonce: 3, to: probeAt, data: probe.encodeFunctionData('nested', [5]) })),
    0n,
    opts,
  );
  if (isRejection(nested)) assert.fail(nested.reason);
  // the DELEGATECALL's message keeps the top call's msg.sender (the wallet) as its caller: an address
  // of the tree already
  assert.deepEqual(
    lowerSet(nested.addresses?.internal),
    new Set(
      [probeAt, targetAt, w.address, '0x0000000000000000000000000000000000000002'].map((a) =>
        a.toLowerCase(),
      ),
    ),
  );
  assert.deepEqual(nested.addresses?.created, []);

  const beneficiary = '0x' + '5a'.repeat(20);
  const destroyed = await ex.execute(
    decode(
      await signed(w, {
        ...fee,
        nonce: 4,
        to: doomedAt,
        data: doomed.encodeFunctionData('destroy', [beneficiary]),
      }),
    ),
    0n,
    opts,
  );
  if (isRejection(destroyed)) assert.fail(destroyed.reason);
  assert.deepEqual(
    lowerSet(destroyed.addresses?.internal),
    new Set([beneficiary]),
    'the beneficiary of a top-level selfdestruct',
  );

  const salt = '0x' + '33'.repeat(32);
  const made = await ex.execute(
    decode(
      await signed(w, {
        ...fee,
        nonce: 5,
        to: probeAt,
        value: 3n,
        data: probe.encodeFunctionData('deploy', [salt]),
      }),
    ),
    0n,
    opts,
  );
  if (isRejection(made)) assert.fail(made.reason);
  assert.equal(made.addresses?.created.length, 2, 'CREATE and CREATE2 below the top call');
  assert.ok(
    lowerSet(made.addresses?.created).has(getCreateAddress({ from: probeAt, nonce: 1 }).toLowerCase()),
  );

  const plain = await ex.execute(
    decode(await signed(w, { ...fee, nonce: 6, to: probeAt, data: probe.encodeFunctionData('nested', [6]) })),
  );
  if (isRejection(plain)) assert.fail(plain.reason);
  assert.equal(plain.addresses, undefined, 'nothing collected unless asked');
  ex.release();
});
