/**
 * eth_call over HTTP against an in-process node: results at latest and older heights, defaults,
 * reverts (Error(string), Panic(uint256), custom errors), state and block overrides, every error path
 * (EVM halts, funds, fees, intrinsic gas, chain id, timeout, parameters, heights).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AbiCoder, getCreateAddress, Interface, keccak256, parseEther } from 'ethers';
import { artifacts } from '../../helpers/dev-chain.ts';
import { error, GWEI, hex, result, rpcNode, sendAndWait, wallets } from './rpc-helpers.ts';
import {
  BLOCK_PROBE,
  CREATE_PROBE,
  panicData,
  returnWith,
  revertWith,
  SELF_BALANCE,
  SLOAD_PROBE,
  SPIN,
  word,
} from './simulate-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const abi = AbiCoder.defaultAbiCoder();
const PROBE = '0x' + '77'.repeat(20);
const SUPPLY = 1000n;
/** balanceOf is the token's fourth slot (name, symbol, totalSupply, balanceOf, allowance). */
const balanceSlot = (owner: string) => keccak256(abi.encode(['address', 'uint256'], [owner, 3]));

test('eth_call', async (t) => {
  const { url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const call = (...params: unknown[]) => result(url, 'eth_call', params);
  const fails = (...params: unknown[]) => error(url, 'eth_call', params);
  const [a, b] = [wallets[0].address, wallets[1].address];
  const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
  const deploy = await sendAndWait(url, wallets[0], {
    type: 2,
    nonce: 0,
    gasLimit: 2_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', SUPPLY]).slice(2),
    ...fee,
  });
  const tokenAddress = getCreateAddress({ from: a, nonce: 0 });
  const move = await sendAndWait(url, wallets[0], {
    type: 2,
    nonce: 1,
    to: tokenAddress,
    data: token.encodeFunctionData('transfer', [b, 10n]),
    gasLimit: 100_000,
    ...fee,
  });
  const [hDeploy, hMove] = [deploy, move].map((x) => Number(x.receipt.blockNumber));
  const balanceOf = (who: string) => ({
    to: tokenAddress,
    data: token.encodeFunctionData('balanceOf', [who]),
  });
  const uint = (n: bigint) => '0x' + word(n);

  await t.test('results at latest, at older heights (State Store) and by every reference form', async () => {
    assert.equal(await call(balanceOf(a)), uint(SUPPLY - 10n)); // block omitted: latest
    for (const ref of ['latest', 'pending', 'safe', 'finalized', { blockNumber: hex(hMove) }])
      assert.equal(await call(balanceOf(b), ref), uint(10n), JSON.stringify(ref));
    assert.equal(await call(balanceOf(a), hex(hDeploy)), uint(SUPPLY));
    assert.equal(await call(balanceOf(a), deploy.receipt.blockHash), uint(SUPPLY));
    assert.equal(await call(balanceOf(b), { blockHash: deploy.receipt.blockHash }), uint(0n));
    // before the deployment there is no code: a call to a code-less account returns nothing
    assert.equal(await call(balanceOf(a), hex(hDeploy - 1)), '0x');
    assert.equal(await call(balanceOf(a), 'earliest'), '0x');
    const name = await call({ to: tokenAddress, input: token.encodeFunctionData('name') });
    assert.equal(token.decodeFunctionResult('name', name)[0], 'Test');
    // `data` and `input` may both be given when equal
    const d = token.encodeFunctionData('symbol');
    assert.equal(
      token.decodeFunctionResult('symbol', await call({ to: tokenAddress, data: d, input: d }))[0],
      'TST',
    );
  });

  await t.test('nothing is persisted: a transfer simulated twice leaves balances and nonces', async () => {
    const transfer = { from: a, to: tokenAddress, data: token.encodeFunctionData('transfer', [b, 5n]) };
    assert.equal(await call(transfer), uint(1n));
    assert.equal(await call(balanceOf(b)), uint(10n));
    assert.equal(await result(url, 'eth_getTransactionCount', [a, 'latest']), '0x2');
    // a value transfer from a funded account
    assert.equal(await call({ from: a, to: b, value: hex(parseEther('1')) }), '0x');
    assert.equal(await result(url, 'eth_getBalance', [b, 'latest']), hex(parseEther('10000')));
  });

  await t.test('reverts: code 3 with the revert bytes, reasons decoded as geth does', async () => {
    // require(allowed >= value, "allowance exceeded") — Error(string)
    const e1 = await fails({
      from: b,
      to: tokenAddress,
      data: token.encodeFunctionData('transferFrom', [a, b, 1n]),
    });
    assert.deepEqual(e1, {
      code: 3,
      message: 'execution reverted: allowance exceeded',
      data: token.encodeErrorResult('Error', ['allowance exceeded']),
    });
    // a custom error is not decoded: plain message, data carries it
    const e2 = await fails({
      from: b,
      to: tokenAddress,
      data: token.encodeFunctionData('transfer', [a, 11n]),
    });
    assert.deepEqual(e2, {
      code: 3,
      message: 'execution reverted',
      data: token.encodeErrorResult('InsufficientBalance', [10n, 11n]),
    });
    // Panic(uint256) in geth's words, known and unknown codes; an empty revert
    const cases: [Uint8Array, string][] = [
      [panicData(0x11), 'execution reverted: arithmetic underflow or overflow'],
      [panicData(0x01), 'execution reverted: assert(false)'],
      [panicData(0x12), 'execution reverted: division or modulo by zero'],
      [panicData(0x99), 'execution reverted: unknown panic code: 0x99'],
      [new Uint8Array(0), 'execution reverted'],
    ];
    for (const [revert, message] of cases) {
      const e = await fails({ to: PROBE }, 'latest', { [PROBE]: { code: revertWith(revert) } });
      assert.deepEqual(e, { code: 3, message, data: '0x' + Buffer.from(revert).toString('hex') });
    }
  });

  await t.test('state overrides: balance, nonce, code, state (replace) and stateDiff (patch)', async () => {
    const probeWith = (o: object) => call({ to: PROBE }, 'latest', { [PROBE]: o });
    assert.equal(await probeWith({ code: returnWith(Buffer.from('beef', 'hex')) }), '0xbeef');
    assert.equal(await probeWith({ code: SELF_BALANCE, balance: '0x1234' }), uint(0x1234n));
    assert.equal(await probeWith({ code: SELF_BALANCE }), uint(0n));
    assert.equal(
      await probeWith({ code: CREATE_PROBE, nonce: '0x7' }),
      '0x' + '00'.repeat(12) + getCreateAddress({ from: PROBE, nonce: 7 }).slice(2).toLowerCase(),
    );
    const slots = { ['0x' + word(0n)]: '0x' + word(5n), ['0x' + word(1n)]: '0x' + word(6n) };
    assert.equal(await probeWith({ code: SLOAD_PROBE, state: slots }), uint(5n) + word(6n));
    // the token's own storage: `state` replaces it (totalSupply reads 0), `stateDiff` patches it
    const patch = { [balanceSlot(b)]: '0x' + word(777n) };
    const totalSupply = { to: tokenAddress, data: token.encodeFunctionData('totalSupply') };
    const over = (kind: string) => ({ [tokenAddress]: { [kind]: patch } });
    assert.equal(await call(balanceOf(b), 'latest', over('stateDiff')), uint(777n));
    assert.equal(await call(totalSupply, 'latest', over('stateDiff')), uint(SUPPLY));
    assert.equal(await call(balanceOf(b), 'latest', over('state')), uint(777n));
    assert.equal(await call(totalSupply, 'latest', over('state')), uint(0n));
    assert.equal(await call(balanceOf(a), 'latest', over('state')), uint(0n));
    // an override lets a zero-balance sender move value
    const poor = '0x' + '66'.repeat(20);
    assert.equal(
      await call({ from: poor, to: b, value: '0x5' }, 'latest', { [poor]: { balance: '0x5' } }),
      '0x',
    );
    // overrides apply at older heights too
    assert.equal(await call(balanceOf(b), hex(hDeploy), over('stateDiff')), uint(777n));
  });

  await t.test('block context and block overrides; BASEFEE is 0 for a zero-price call, as geth', async () => {
    const latest = await result(url, 'eth_getBlockByNumber', ['latest', false]);
    const probe = { from: wallets[0].address, to: PROBE };
    const code = { [PROBE]: { code: BLOCK_PROBE } };
    const gasLimit = BigInt(latest.gasLimit);
    const words = (...n: bigint[]) => '0x' + n.map(word).join('');
    const coinbase = BigInt(await result(url, 'eth_coinbase'));
    assert.equal(
      await call(probe, 'latest', code),
      words(BigInt(latest.number), BigInt(latest.timestamp), gasLimit, 0n, coinbase, 0n),
    );
    const base = BigInt(latest.baseFeePerGas);
    assert.equal(
      await call({ ...probe, maxFeePerGas: hex(base * 2n), maxPriorityFeePerGas: '0x1' }, 'latest', code),
      words(BigInt(latest.number), BigInt(latest.timestamp), gasLimit, base, coinbase, base + 1n),
    );
    const over = {
      number: '0x99',
      time: '0x1234',
      gasLimit: '0x5f5e100',
      feeRecipient: '0x' + '42'.repeat(20),
      baseFeePerGas: '0x7',
    };
    assert.equal(
      await call({ ...probe, gasPrice: '0x9' }, 'latest', code, over),
      words(0x99n, 0x1234n, 0x5f5e100n, 7n, BigInt('0x' + '42'.repeat(20)), 9n),
    );
    // the older spellings
    assert.equal(
      await call({ ...probe, gasPrice: '0x9' }, 'latest', code, {
        coinbase: '0x' + '43'.repeat(20),
        baseFee: '0x8',
      }),
      words(
        BigInt(latest.number),
        BigInt(latest.timestamp),
        gasLimit,
        8n,
        BigInt('0x' + '43'.repeat(20)),
        9n,
      ),
    );
  });

  await t.test('EVM halts, unfundable and invalid messages: -32000 with geth wording', async () => {
    const transfer = { from: a, to: tokenAddress, data: token.encodeFunctionData('transfer', [b, 1n]) };
    assert.deepEqual(await fails({ ...transfer, gas: hex(25_000) }), { code: -32000, message: 'out of gas' });
    // 21000 + 68 bytes of calldata at the EIP-7623 floor rate
    assert.deepEqual(await fails({ ...transfer, gas: hex(21_000) }), {
      code: -32000,
      message: 'intrinsic gas too low: have 21000, want 22430',
    });
    const poor = '0x' + '66'.repeat(20);
    assert.deepEqual(await fails({ from: poor, to: b, value: '0x1' }), {
      code: -32000,
      message:
        'insufficient funds for gas * price + value: address 0x6666666666666666666666666666666666666666 have 0 want 1',
    });
    assert.deepEqual(await fails({ from: poor, to: b, gas: hex(30_000), gasPrice: hex(10n * GWEI) }), {
      code: -32000,
      message: `insufficient funds for gas * price + value: address 0x6666666666666666666666666666666666666666 have 0 want ${30_000n * 10n * GWEI}`,
    });
    const latest = await result(url, 'eth_getBlockByNumber', ['latest', false]);
    assert.deepEqual(await fails({ from: a, to: b, maxFeePerGas: '0x1' }), {
      code: -32000,
      message: `max fee per gas less than block base fee: address ${wallets[0].address}, maxFeePerGas: 1, baseFee: ${BigInt(latest.baseFeePerGas)}`,
    });
    assert.deepEqual(await fails({ to: b, chainId: '0x1' }), {
      code: -32000,
      message: "chainId does not match node's (have=1, want=713714)",
    });
  });

  await t.test('parameter errors are -32602 naming the argument', async () => {
    const bad: [unknown[], string][] = [
      [[], 'missing value for required argument 0'],
      [
        ['0x12'],
        'invalid argument 0: json: cannot unmarshal string into Go value of type ethapi.TransactionArgs',
      ],
      [[{ to: '0x12' }], 'invalid argument 0: to: hex string has length 2, want 40 for common.Address'],
      [[{ to: b, gas: '0x' }], 'invalid argument 0: gas: hex string "0x"'],
      [
        [{ to: b, data: '0x01', input: '0x02' }],
        'invalid argument 0: both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
      ],
      [
        [{ to: b, gasPrice: '0x1', maxFeePerGas: '0x1' }],
        'invalid argument 0: both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
      ],
      [
        [{ to: b, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }],
        'invalid argument 0: maxFeePerGas (1) < maxPriorityFeePerGas (2)',
      ],
      [
        [{ to: b, blobVersionedHashes: ['0x01' + '00'.repeat(31)] }],
        'invalid argument 0: blobVersionedHashes: blob transactions are not supported',
      ],
      [
        [{ to: b }, 'latest', { [b]: { balanse: '0x1' } }],
        `invalid argument 2: ${b}: unknown field "balanse" in account override`,
      ],
      [[{ to: b }, 'latest', { [b]: { state: {}, stateDiff: {} } }], `__runtime__`],
      [
        [{ to: b }, 'latest', { '0x12': {} }],
        'invalid argument 2: address 0x12: hex string has length 2, want 40 for common.Address',
      ],
      [
        [{ to: b }, 'latest', {}, { numbr: '0x1' }],
        'invalid argument 3: unknown field "numbr" in block overrides',
      ],
      [
        [{ to: b }, 'latest', {}, { beaconRoot: '0x' + '00'.repeat(32) }],
        'invalid argument 3: block override "beaconRoot" is not supported for this RPC method',
      ],
      [[{ to: b }, 'latest', {}, {}, 1], 'too many arguments, want at most 4'],
    ];
    for (const [params, message] of bad) {
      const e = await fails(...params);
      if (message === '__runtime__') {
        assert.deepEqual(e, {
          code: -32000,
          message: `account ${b.toLowerCase()} has both 'state' and 'stateDiff'`,
        });
        continue;
      }
      assert.deepEqual(e, { code: -32602, message }, JSON.stringify(params));
    }
  });

  await t.test('heights: above latest is "header not found", an unknown hash names it', async () => {
    const head = Number(await result(url, 'eth_blockNumber'));
    assert.deepEqual(await fails(balanceOf(a), hex(head + 100)), {
      code: -32000,
      message: 'header not found',
    });
    const unknown = '0x' + 'ab'.repeat(32);
    assert.deepEqual(await fails(balanceOf(a), unknown), {
      code: -32000,
      message: `header for hash ${unknown} not found`,
    });
  });
});

// A node of its own: the short deadline would otherwise bound every other call of the file too.
test('eth_call: a run over simulation_evm_timeout is aborted while the node keeps answering', async (t) => {
  const { url } = await rpcNode(t, {
    'consensus.create-empty-blocks': 'false',
    'evm.simulation_evm_timeout': '300ms',
  });
  const started = Date.now();
  const pending = error(url, 'eth_call', [
    { to: PROBE, gas: hex(100_000_000) },
    'latest',
    { [PROBE]: { code: SPIN } },
  ]);
  assert.match(await result(url, 'eth_blockNumber'), /^0x/);
  assert.deepEqual(await pending, { code: -32000, message: 'execution aborted (timeout = 300ms)' });
  assert.ok(Date.now() - started < 5000); // far below the 100M-gas spin's own length
});
