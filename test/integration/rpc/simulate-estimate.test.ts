/**
 * eth_estimateGas and eth_createAccessList over HTTP (exact minimum, every failure path), and the
 * client scenarios that depend on simulation: ethers Contract reads, revert reasons as
 * CALL_EXCEPTION, writes without a gasLimit (ethers estimates); viem simulateContract and
 * estimateContractGas.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Contract,
  getCreateAddress,
  Interface,
  JsonRpcProvider,
  Wallet,
  isError,
  keccak256,
  AbiCoder,
} from 'ethers';
import { createPublicClient, defineChain, http as viemHttp, type Hex } from 'viem';
import { artifacts } from '../../helpers/dev-chain.ts';
import { CHAIN_ID, error, GWEI, hex, result, rpcNode, sendAndWait, wallets } from './rpc-helpers.ts';
import { revertWith, SPIN } from './simulate-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const abi = AbiCoder.defaultAbiCoder();
const PROBE = '0x' + '77'.repeat(20);

test('eth_estimateGas, eth_createAccessList and the clients that use them', async (t) => {
  const { url } = await rpcNode(t, {
    'consensus.create-empty-blocks': 'false',
    'evm.simulation_gas_limit': '1000000',
  });
  const estimate = (...params: unknown[]) => result(url, 'eth_estimateGas', params);
  const call = (...params: unknown[]) => result(url, 'eth_call', params);
  const [a, b] = [wallets[0].address, wallets[1].address];
  await sendAndWait(url, wallets[0], {
    type: 2,
    nonce: 0,
    gasLimit: 2_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
  const tokenAddress = getCreateAddress({ from: a, nonce: 0 });
  const transfer = { from: a, to: tokenAddress, data: token.encodeFunctionData('transfer', [b, 10n]) };

  await t.test('eth_estimateGas: the exact minimum that succeeds', async () => {
    assert.equal(await estimate({ from: a, to: b, value: '0x1' }), hex(21_000));
    assert.equal(await estimate({ to: b }), hex(21_000)); // zero-address sender, no value
    for (const msg of [transfer, { ...transfer, data: token.encodeFunctionData('approve', [b, 5n]) }]) {
      const gas = BigInt(await estimate(msg));
      // succeeds with the estimate, runs out of gas with one less
      assert.equal(await call({ ...msg, gas: hex(gas) }), '0x' + '00'.repeat(31) + '01');
      const e = await error(url, 'eth_call', [{ ...msg, gas: hex(gas - 1n) }]);
      assert.deepEqual(e, { code: -32000, message: 'out of gas' });
    }
    // at genesis the token has no code: calling it is a plain call with 68 bytes of calldata
    assert.equal(await estimate(transfer, '0x0'), hex(22_430));
  });

  await t.test('eth_estimateGas failures', async () => {
    const e1 = await error(url, 'eth_estimateGas', [
      { from: b, to: tokenAddress, data: token.encodeFunctionData('transferFrom', [a, b, 1n]) },
    ]);
    assert.deepEqual(e1, {
      code: 3,
      message: 'execution reverted: allowance exceeded',
      data: token.encodeErrorResult('Error', ['allowance exceeded']),
    });
    // never enough gas within the call's own limit
    assert.deepEqual(await error(url, 'eth_estimateGas', [{ ...transfer, gas: hex(30_000) }]), {
      code: -32000,
      message: 'gas required exceeds allowance (30000)',
    });
    // the cap (simulation_gas_limit) bounds a spinning call
    assert.deepEqual(
      await error(url, 'eth_estimateGas', [{ to: PROBE }, 'latest', { [PROBE]: { code: SPIN } }]),
      { code: -32000, message: 'gas required exceeds allowance (1000000)' },
    );
    const poor = '0x' + '66'.repeat(20);
    assert.deepEqual(
      await error(url, 'eth_estimateGas', [{ from: poor, to: b, value: '0x1', gasPrice: '0x1' }]),
      {
        code: -32000,
        message: 'insufficient funds for transfer',
      },
    );
    // a fee cap limits the search to what the balance pays for
    assert.deepEqual(
      await error(url, 'eth_estimateGas', [
        { from: poor, to: b, gasPrice: hex(GWEI) },
        'latest',
        { [poor]: { balance: hex(20_000n * GWEI) } },
      ]),
      { code: -32000, message: 'gas required exceeds allowance (20000)' },
    );
    // with state overrides the same call succeeds
    assert.equal(
      await estimate({ from: poor, to: b, value: '0x1' }, 'latest', { [poor]: { balance: '0x1' } }),
      hex(21_000),
    );
    assert.deepEqual(
      await error(url, 'eth_estimateGas', [
        { to: PROBE },
        'latest',
        { [PROBE]: { code: revertWith(new Uint8Array([1, 2])) } },
      ]),
      { code: 3, message: 'execution reverted', data: '0x0102' },
    );
    // a block gas limit override bounds the search like the block's own limit
    assert.deepEqual(
      await error(url, 'eth_estimateGas', [
        { to: PROBE },
        'latest',
        { [PROBE]: { code: SPIN } },
        { gasLimit: hex(50_000) },
      ]),
      { code: -32000, message: 'gas required exceeds allowance (50000)' },
    );
    assert.deepEqual(await error(url, 'eth_estimateGas', [{ to: b }, 'latest', {}, {}, 1]), {
      code: -32602,
      message: 'too many arguments, want at most 4',
    });
  });

  await t.test(
    'EIP-7702: an authorization list makes the call a set-code one (eth_call, eth_estimateGas)',
    async () => {
      const eoa = wallets[2];
      const auth = await eoa.authorize({ address: tokenAddress, nonce: 0, chainId: CHAIN_ID });
      const wire = {
        chainId: hex(auth.chainId),
        address: auth.address,
        nonce: hex(auth.nonce),
        yParity: hex(auth.signature.yParity),
        r: auth.signature.r,
        s: auth.signature.s,
      };
      const symbol = { from: b, to: eoa.address, data: token.encodeFunctionData('symbol') };
      // without it the EOA has no code; with it the token's code runs on the EOA's (empty) storage
      assert.equal(await call(symbol), '0x');
      const delegated = { ...symbol, authorizationList: [wire] };
      assert.equal(await call(delegated), token.encodeFunctionResult('symbol', ['']));
      const gas = BigInt(await estimate(delegated));
      assert.ok(gas > 21_000n + 12_500n, `${gas}`);
      assert.equal(await call({ ...delegated, gas: hex(gas) }), token.encodeFunctionResult('symbol', ['']));
      assert.equal((await error(url, 'eth_call', [{ ...delegated, gas: hex(gas - 1n) }])).code, -32000);
      // nothing persisted: the EOA still has no code
      assert.equal(await result(url, 'eth_getCode', [eoa.address, 'latest']), '0x');
      assert.deepEqual(
        await error(url, 'eth_call', [{ ...delegated, authorizationList: [{ ...wire, r: '0x12zz' }] }]),
        {
          code: -32602,
          message:
            'invalid argument 0: authorizationList: [0].r: invalid hex number "0x12zz": want at most 32 bytes of hex',
        },
      );
    },
  );

  await t.test(
    'eth_createAccessList: touched slots, gas with the list, error of a failing call',
    async () => {
      const balanceOf = { from: a, to: tokenAddress, data: token.encodeFunctionData('balanceOf', [a]) };
      const slot = keccak256(abi.encode(['address', 'uint256'], [a, 3]));
      const r = await result(url, 'eth_createAccessList', [balanceOf]);
      assert.deepEqual(r.accessList, [{ address: tokenAddress.toLowerCase(), storageKeys: [slot] }]);
      // gasUsed is the gas of the call with the list: the same as its exact estimate
      assert.equal(r.gasUsed, await estimate({ ...balanceOf, accessList: r.accessList }));
      assert.equal('error' in r, false);
      const reverting = await result(url, 'eth_createAccessList', [
        { from: b, to: tokenAddress, data: token.encodeFunctionData('transferFrom', [a, b, 1n]) },
      ]);
      assert.equal(reverting.error, 'execution reverted');
      const allowanceSlot = keccak256(
        abi.encode(['address', 'bytes32'], [b, keccak256(abi.encode(['address', 'uint256'], [a, 4]))]),
      );
      assert.deepEqual(reverting.accessList, [
        { address: tokenAddress.toLowerCase(), storageKeys: [allowanceSlot] },
      ]);
      assert.deepEqual(Object.keys(reverting), ['accessList', 'error', 'gasUsed']);
      // a creation: the new contract is listed by the slots its constructor writes (geth's tracer)
      const nonce = Number(await result(url, 'eth_getTransactionCount', [a, 'latest']));
      const created = getCreateAddress({ from: a, nonce }).toLowerCase();
      const deploy = await result(url, 'eth_createAccessList', [
        { from: a, data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2) },
      ]);
      const word = (n: number) => '0x' + n.toString(16).padStart(64, '0');
      assert.deepEqual(deploy.accessList, [
        {
          address: created,
          storageKeys: [
            word(0),
            word(1),
            word(2),
            keccak256(abi.encode(['address', 'uint256'], [a, 3])),
          ].sort(),
        },
      ]);
    },
  );

  await t.test(
    'ethers: Contract reads, CALL_EXCEPTION with the reason, writes estimated by the node',
    async () => {
      const provider = new JsonRpcProvider(url, undefined, {
        pollingInterval: 50,
        staticNetwork: true,
        cacheTimeout: -1,
      });
      t.after(() => provider.destroy());
      const alice = new Wallet(wallets[0].privateKey, provider);
      const c = new Contract(tokenAddress, artifacts.TestToken.abi, alice);
      assert.equal(await c.getFunction('balanceOf')(a), 1000n);
      assert.equal(await c.getFunction('symbol')(), 'TST');
      const bobToken = new Contract(
        tokenAddress,
        artifacts.TestToken.abi,
        new Wallet(wallets[1].privateKey, provider),
      );
      await assert.rejects(bobToken.getFunction('transferFrom').staticCall(a, b, 1n), (err: unknown) => {
        assert.ok(isError(err, 'CALL_EXCEPTION'));
        assert.equal(err.reason, 'allowance exceeded');
        return true;
      });
      await assert.rejects(bobToken.getFunction('transfer').staticCall(a, 1n), (err: unknown) => {
        assert.ok(isError(err, 'CALL_EXCEPTION'));
        assert.equal(err.revert?.name, 'InsufficientBalance');
        assert.deepEqual([...err.revert!.args], [0n, 1n]);
        return true;
      });
      // no gasLimit: ethers asks eth_estimateGas, and the tx mines with exactly that limit
      const tx = await c.getFunction('transfer')(b, 7n);
      const receipt = await tx.wait();
      assert.equal(receipt.status, 1);
      assert.equal(
        tx.gasLimit,
        BigInt(
          await estimate({ ...transfer, data: tx.data, nonce: undefined }, hex(receipt.blockNumber - 1)),
        ),
      );
      assert.equal(await c.getFunction('balanceOf')(b), 7n);
    },
  );

  await t.test('viem: simulateContract and estimateContractGas', async () => {
    const chain = defineChain({
      id: Number(CHAIN_ID),
      name: 'chaind',
      nativeCurrency: { name: 'chain', symbol: 'CHAIN', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    const client = createPublicClient({ chain, transport: viemHttp(url) });
    const address = tokenAddress as Hex;
    // viem's stateOverride and blockOverrides serialize to geth's shapes
    const slot = keccak256(abi.encode(['address', 'uint256'], [b, 3])) as Hex;
    const patched = await client.call({
      to: address,
      data: token.encodeFunctionData('balanceOf', [b]) as Hex,
      stateOverride: [{ address, stateDiff: [{ slot, value: ('0x' + '0'.repeat(62) + '2a') as Hex }] }],
      blockOverrides: { number: 12345n },
    });
    assert.equal(patched.data, '0x' + '0'.repeat(62) + '2a');
    const sim = await client.simulateContract({
      address,
      abi: artifacts.TestToken.abi,
      functionName: 'transfer',
      args: [b, 3n],
      account: a as Hex,
    });
    assert.equal(sim.result, true);
    const gas = await client.estimateContractGas({
      address,
      abi: artifacts.TestToken.abi,
      functionName: 'transfer',
      args: [b, 3n],
      account: a as Hex,
    });
    assert.equal(
      gas,
      BigInt(await estimate({ ...transfer, data: token.encodeFunctionData('transfer', [b, 3n]) })),
    );
    await assert.rejects(
      client.simulateContract({
        address,
        abi: artifacts.TestToken.abi,
        functionName: 'transferFrom',
        args: [a, b, 1n],
        account: b as Hex,
      }),
      (err: Error) => {
        assert.match(err.message, /allowance exceeded/);
        return true;
      },
    );
  });
});
