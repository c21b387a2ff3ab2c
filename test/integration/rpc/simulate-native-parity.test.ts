/**
 * The native simulator (revm, `npm run build:native-sim`) answers eth_call exactly as the JS EVM does,
 * on one in-process node's state: each case runs through `Simulation.callNative` and `Simulation.call`
 * and the results (status, return or revert data, gas used, halt message) or errors (class, code,
 * message) must be equal; the cases the native simulator must answer itself are marked, so the test
 * cannot pass by handing everything to the JS EVM. The same calls then go through the eth_call
 * method of two dispatchers, `[evm] native_simulator` on and off, and the JSON answers must be equal.
 * Skips, naming the build command, when the addon is not built.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { AbiCoder, Interface, SigningKey, keccak256 } from 'ethers';
import { parseGenesis } from '../../../src/app/genesis.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { type NativeSimulator, nativeSimulator } from '../../../src/execution/simulation/native-binding.ts';
import { type EstimateResult, estimateGas } from '../../../src/execution/simulation/estimate.ts';
import type { CallMessage, RunResult } from '../../../src/execution/simulation/simulate.ts';
import { NodeChainReader } from '../../../src/node/adapters/evm-chain-reader.ts';
import { NodeSimulation } from '../../../src/node/adapters/evm-simulation.ts';
import { EvmRpc } from '../../../src/node/evm-rpc.ts';
import { toJsonRpcError } from '../../../src/rpc/server/errors.ts';
import { ChainError } from '../../../src/util/errors.ts';
import { memoryLogger } from '../../../src/util/logger.ts';
import { artifacts } from '../../helpers/dev-chain.ts';
import { FREE_PORT_FLAGS, makeHome, startNode } from '../../helpers/node.ts';
import { CHAIN_ID, GWEI, sendAndWait, wallets } from './rpc-helpers.ts';
import { CREATE_PROBE, SPIN } from './simulate-helpers.ts';
import { CORRECT_PROOF, pointEvaluationInput, POINT_EVALUATION } from '../../fixtures/point-evaluation.ts';

/** Encodings of G1 points and scalars the two KZG implementations must both refuse (or accept). */
const POINT_EVALUATION_EDGES = {
  /** the compression flag unset */
  uncompressedFlag: pointEvaluationInput({ ...CORRECT_PROOF, proof: '0' + CORRECT_PROOF.proof.slice(1) }),
  /** the infinity flag with a non-zero x */
  infinityWithX: pointEvaluationInput({ ...CORRECT_PROOF, proof: 'c0' + '00'.repeat(46) + '01' }),
  /** x = p, the base field's modulus: not canonical */
  xNotInField: pointEvaluationInput({
    ...CORRECT_PROOF,
    commitment:
      '9a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab',
  }),
  /** z = BLS_MODULUS */
  zNotInField: pointEvaluationInput({
    ...CORRECT_PROOF,
    z: '73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001',
  }),
  /** the proof's sign bit flipped: the negated point */
  negatedProof: pointEvaluationInput({
    ...CORRECT_PROOF,
    proof: (parseInt(CORRECT_PROOF.proof.slice(0, 2), 16) ^ 0x20).toString(16) + CORRECT_PROOF.proof.slice(2),
  }),
};

const native = nativeSimulator();
const skip = typeof native === 'string' ? `native simulator ${native}` : false;

const token = new Interface(artifacts.TestToken.abi);
const caller = new Interface(artifacts.ReplayCaller.abi);
const abi = AbiCoder.defaultAbiCoder();
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const hexOf = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const word = (n: bigint | number) => BigInt(n).toString(16).padStart(64, '0');
const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');

/** Creation code that deploys `runtime` as is (PUSH2 len DUP1 PUSH1 12 PUSH1 0 CODECOPY PUSH1 0 RETURN). */
const deployCode = (runtime: string) => {
  const r = runtime.replace(/^0x/, '');
  return '0x61' + (r.length / 2).toString(16).padStart(4, '0') + '80600c6000396000f3' + r;
};

/** Hand-assembled runtimes. */
const RUNTIMES = {
  /** REVERTs with its calldata (a reason string, a custom error, anything) */
  echoRevert: '365f5f37365ffd',
  /** RETURNs its calldata */
  echoReturn: '365f5f37365ff3',
  invalid: 'fe',
  /** 0x0c is no opcode */
  undefinedOp: '0c',
  stackUnderflow: '01',
  /** CREATEs an empty contract and returns its address (which follows this account's nonce) */
  create: CREATE_PROBE.slice(2),
  /** EXTCODESIZE and EXTCODEHASH of the address in calldata word 0 */
  extcode: '5f353b5f52' + '5f353f602052' + '60405ff3',
  /** pushes a word and jumps back, forever: the stack overflows at 1024 */
  stackOverflow: '5b5f5f56',
  badJump: '600356',
  /** SLOAD(calldata word 0) */
  sload: '5f35545f5260205ff3',
  /** MSTORE at 2^40: the memory expansion costs more than any gas limit */
  hugeMemory: '600164ffffffffff52',
  /** TSTORE/TLOAD, SSTORE then SSTORE back (a refund), SLOAD, LOG0; returns the two words read */
  scratch:
    '602a5f5d' + // TSTORE(0, 42)
    '5f5c5f52' + // MSTORE(0, TLOAD(0))
    '6007600155' + // SSTORE(1, 7)
    '6001545f' + // SLOAD(1) ... (kept on the stack)
    '6000600155' + // SSTORE(1, 0): refund
    '50' + // POP the SLOAD
    '600160205260' + // MSTORE(32, 1)
    '405fa0' + // LOG0(0, 64)
    '60405ff3',
  /**
   * Calls calldata word 0 with the rest of the calldata and all its gas, and returns the success flag
   * followed by the return data (a failing or reverting callee does not stop it).
   */
  proxy:
    '36602090038060205f37' + // CALLDATACOPY(0, 32, CALLDATASIZE - 32), leaving the length
    '5f5f825f5f5f355af1' + // CALL(GAS, calldata[0], 0, 0, length, 0, 0)
    '5f52' + // MSTORE(0, success)
    '3d5f60203e' + // RETURNDATACOPY(32, 0, RETURNDATASIZE)
    '3d602001' + // RETURNDATASIZE + 32
    '5ff3',
  spin: SPIN.slice(2),
  /** the block and message context: one word each (see ENV_WORDS) */
  env: [
    '43', // NUMBER
    '42', // TIMESTAMP
    '48', // BASEFEE
    '46', // CHAINID
    '41', // COINBASE
    '45', // GASLIMIT
    '44', // PREVRANDAO
    '3a', // GASPRICE
    '32', // ORIGIN
    '33', // CALLER
    '34', // CALLVALUE
    '6001430340', // BLOCKHASH(NUMBER - 1)
    '6002430340', // BLOCKHASH(NUMBER - 2)
    '600140', // BLOCKHASH(1)
    '4340', // BLOCKHASH(NUMBER): zero
    '4a', // BLOBBASEFEE
    '47', // SELFBALANCE
    '3331', // BALANCE(CALLER)
    '333f', // EXTCODEHASH(CALLER)
    '303b', // EXTCODESIZE(ADDRESS)
    '5a', // GAS: the gas left, so every cost before it counts
  ]
    .map((op, i) => op + '61' + (i * 32).toString(16).padStart(4, '0') + '52')
    .join('')
    .concat('6102a05ff3'),
};

interface Case {
  name: string;
  msg: CallMessage;
  gas?: bigint;
  /**
   * The native simulator must answer itself (not hand the call to the JS EVM); 'either' where it
   * depends on time (its time slice) or where both are fine.
   */
  native: boolean | 'either';
}

type Outcome<R = RunResult> = { result: R } | { error: { name: string; code: string; message: string } };

async function outcome<R = RunResult>(run: () => Promise<R | undefined>): Promise<Outcome<R> | undefined> {
  try {
    const result = await run();
    return result && { result };
  } catch (err) {
    assert.ok(err instanceof ChainError, `not a ChainError: ${String(err)}`);
    return { error: { name: err.constructor.name, code: err.code, message: err.message } };
  }
}

test('eth_call: the native simulator answers exactly as the JS EVM', { skip }, async (t) => {
  if (typeof native === 'string') return;
  const flags = { 'consensus.create-empty-blocks': 'false' };
  const home = makeHome(t);
  const node = await startNode(home, flags);
  t.after(() => node.stop());
  const url = node.modules.evmHttp!.url;
  const [w0, w1] = wallets;
  const fee = { type: 2, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
  let nonce = 0;
  const deploy = async (data: string) => {
    const { receipt } = await sendAndWait(url, w0, { ...fee, nonce: nonce++, gasLimit: 3_000_000, data });
    assert.equal(receipt.status, '0x1');
    return bytes(receipt.contractAddress);
  };
  const c: Record<string, Uint8Array> = {};
  for (const [name, runtime] of Object.entries(RUNTIMES)) c[name] = await deploy(deployCode(runtime));
  const tokenAddress = await deploy(
    artifacts.TestToken.bytecode + token.encodeDeploy(['T', 'T', 1000n]).slice(2),
  );
  const callee = await deploy(artifacts.ReplayCallee.bytecode);
  const replay = await deploy(
    artifacts.ReplayCaller.bytecode + caller.encodeDeploy([hexOf(callee)]).slice(2),
  );
  // a few more blocks, so BLOCKHASH has history to read
  for (let i = 0; i < 3; i++)
    await sendAndWait(url, w0, { ...fee, nonce: nonce++, to: w1.address, gasLimit: 21_000, value: 1n });

  // an EOA delegating to echoReturn (EIP-7702)
  const delegated = wallets[2];
  const auth = await delegated.authorize({ address: hexOf(c.echoReturn), nonce: 1, chainId: CHAIN_ID });
  const delegation = await sendAndWait(url, delegated, {
    ...fee,
    type: 4,
    nonce: 0,
    to: delegated.address,
    gasLimit: 100_000,
    authorizationList: [auth],
  });
  assert.equal(delegation.receipt.status, '0x1');

  const chain = node.modules.chain;
  const { config } = loadConfig({ home, env: {}, flags: { ...FREE_PORT_FLAGS, ...flags } });
  const genesis = parseGenesis(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
  const reader = new NodeChainReader({ chain, blocks: chain.blocks, ss: node.modules.ss, genesis });
  const evm = config.app.evm;
  const simulation = new NodeSimulation(
    { gasCap: BigInt(evm.simulationGasLimit), timeoutMs: evm.simulationEvmTimeout },
    { chain, reader },
  );
  const height = chain.latestHeight;

  const from = bytes(w0.address);
  const poor = bytes(addr(0xdead01));
  const precompile = (n: number, data: string, gas?: bigint): CallMessage & { gas?: bigint } => ({
    from,
    to: bytes(addr(n)),
    data: bytes(data),
    ...(gas ? { gas } : {}),
  });
  const viaProxy = (to: Uint8Array, data: string): CallMessage => ({
    from,
    to: c.proxy,
    data: bytes('0x' + word(BigInt(hexOf(to))) + data.replace(/^0x/, '')),
  });
  const digest = keccak256('0x1234');
  const sig = new SigningKey('0x' + '11'.repeat(32)).sign(digest);
  const G1 = word(1) + word(2);
  // EIP-152's fifth vector: 12 rounds of "abc"
  const blake2Input =
    '0000000c' +
    '48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b' +
    '616263'.padEnd(256, '0') +
    '03'.padEnd(32, '0') +
    '01';
  // 3^(2^256 - 1) mod a 64-byte modulus: thousands of gas for 193 bytes of input
  const modexpHeavy = '0x' + word(1) + word(32) + word(64) + '03' + 'ff'.repeat(32) + '07'.repeat(64);
  /** EIP-7623's floor of a call with `data`: the least gas it may have */
  const floorGas = (data: string) => {
    const b = bytes(data);
    const zeros = b.filter((x) => x === 0).length;
    return 21_000n + 10n * BigInt(zeros + 4 * (b.length - zeros));
  };
  // the BLS12-381 G1 generator, each coordinate padded to 64 bytes
  const blsG1 =
    '17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb'.padStart(
      128,
      '0',
    ) +
    '08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1'.padStart(
      128,
      '0',
    );
  const cases: Case[] = [
    // success
    {
      name: 'balanceOf',
      msg: { to: tokenAddress, data: bytes(token.encodeFunctionData('balanceOf', [w0.address])) },
      native: true,
    },
    {
      name: 'balanceOf of no holder',
      msg: { to: tokenAddress, data: bytes(token.encodeFunctionData('balanceOf', [w1.address])) },
      native: true,
    },
    {
      name: 'transfer (writes, an event)',
      msg: { from, to: tokenAddress, data: bytes(token.encodeFunctionData('transfer', [w1.address, 5n])) },
      native: true,
    },
    {
      name: 'nested calls, a caught revert, events',
      msg: { from, to: replay, data: bytes(caller.encodeFunctionData('nested', [7n])) },
      native: true,
    },
    {
      name: 'CREATE2 and SELFDESTRUCT with value',
      msg: {
        from,
        to: replay,
        value: 3n,
        data: bytes(caller.encodeFunctionData('spawnAndDestroy', ['0x' + '01'.repeat(32)])),
      },
      native: true,
    },
    {
      name: 'storage loop',
      msg: { from, to: replay, data: bytes(caller.encodeFunctionData('fill', [20n])) },
      native: true,
    },
    { name: 'transient storage, refund, log', msg: { from, to: c.scratch }, native: true },
    { name: 'echo return', msg: { to: c.echoReturn, data: bytes('0x' + 'ab'.repeat(100)) }, native: true },
    {
      name: 'the sender is a contract',
      msg: { from: c.echoReturn, to: c.echoReturn, data: bytes('0x01') },
      native: true,
    },
    {
      name: 'call to a delegated EOA',
      msg: { from, to: bytes(delegated.address), data: bytes('0xc0ffee') },
      native: true,
    },
    { name: 'a delegated EOA sends', msg: { from: bytes(delegated.address), to: c.env }, native: true },
    {
      name: 'EXTCODESIZE/EXTCODEHASH of a delegated EOA',
      msg: { to: c.extcode, data: bytes('0x' + word(BigInt(delegated.address))) },
      native: true,
    },
    {
      name: 'EXTCODESIZE/EXTCODEHASH of a contract',
      msg: { to: c.extcode, data: bytes('0x' + word(BigInt(hexOf(tokenAddress)))) },
      native: true,
    },
    {
      name: 'EXTCODESIZE/EXTCODEHASH of an EOA',
      msg: { to: c.extcode, data: bytes('0x' + word(BigInt(w1.address))) },
      native: true,
    },
    { name: 'CREATE from a contract', msg: { from, to: c.create }, native: true },
    // the sender's nonce goes up before the call runs: the address it CREATEs follows it
    {
      name: 'CREATE from a contract that sends the call',
      msg: { from: c.create, to: c.create },
      native: true,
    },
    { name: 'block and message context', msg: { from, to: c.env, value: 9n }, native: true },
    { name: 'block context from the zero address', msg: { to: c.env }, native: true },
    {
      name: 'a selector the token does not have',
      msg: { to: tokenAddress, data: bytes('0x' + word(2)) },
      native: true,
    },
    { name: 'SLOAD of a missing slot', msg: { to: c.sload, data: bytes('0x' + word(12345)) }, native: true },
    {
      name: 'SLOAD of another missing slot',
      msg: { to: c.sload, data: bytes('0x' + word(2)) },
      native: true,
    },
    {
      name: 'call to an EOA with data',
      msg: { from, to: bytes(w1.address), data: bytes('0x1234') },
      native: true,
    },
    { name: 'value to an EOA', msg: { from, to: bytes(w1.address), value: 10n ** 18n }, native: true },
    { name: 'call to an empty account', msg: { to: bytes(addr(0xabcdef)) }, native: true },
    {
      name: 'data at the EIP-7623 floor',
      msg: { to: c.echoReturn, data: bytes('0x' + 'ff'.repeat(2000)) },
      native: true,
    },
    // reverts
    {
      name: 'revert with a reason',
      msg: { from, to: replay, data: bytes(caller.encodeFunctionData('mustFail')) },
      native: true,
    },
    {
      name: 'custom error',
      msg: {
        from,
        to: tokenAddress,
        data: bytes(token.encodeFunctionData('transfer', [w1.address, 10n ** 30n])),
      },
      native: true,
    },
    {
      name: 'Error(string) echoed',
      msg: { to: c.echoRevert, data: bytes('0x08c379a0' + abi.encode(['string'], ['nope']).slice(2)) },
      native: true,
    },
    { name: 'empty revert', msg: { to: c.echoRevert }, native: true },
    // halts
    { name: 'out of gas', msg: { to: c.spin }, gas: 200_000n, native: true },
    { name: 'out of gas at the default gas', msg: { to: c.spin }, native: 'either' },
    { name: 'out of gas in memory expansion', msg: { to: c.hugeMemory }, native: true },
    { name: 'invalid opcode 0xfe', msg: { to: c.invalid }, native: true },
    { name: 'undefined opcode', msg: { to: c.undefinedOp }, native: true },
    { name: 'stack underflow', msg: { to: c.stackUnderflow }, native: true },
    { name: 'stack overflow', msg: { to: c.stackOverflow }, native: true },
    // ethereumjs names the code hash, address and pc of a bad jump: left to it
    { name: 'invalid jump', msg: { to: c.badJump }, native: false },
    { name: 'a callee with an invalid jump', msg: viaProxy(c.badJump, ''), native: true },
    { name: 'a callee out of gas', msg: viaProxy(c.spin, ''), gas: 500_000n, native: true },
    { name: 'a callee with an invalid opcode', msg: viaProxy(c.invalid, ''), native: true },
    { name: 'a callee reverting', msg: viaProxy(c.echoRevert, '0xdeadbeef'), native: true },
    // precompiles, called directly and from a contract
    {
      name: 'ecrecover',
      msg: precompile(1, digest + word(sig.v) + sig.r.slice(2) + sig.s.slice(2)),
      native: true,
    },
    {
      name: 'ecrecover of a bad signature',
      msg: precompile(1, digest + word(29) + sig.r.slice(2) + sig.s.slice(2)),
      native: true,
    },
    { name: 'sha256', msg: precompile(2, '0x616263'), native: true },
    { name: 'ripemd160', msg: precompile(3, '0x616263'), native: true },
    { name: 'identity', msg: precompile(4, '0x' + 'cd'.repeat(70)), native: true },
    {
      name: 'modexp',
      msg: precompile(5, '0x' + word(1) + word(1) + word(1) + '03' + '05' + '07'),
      native: true,
    },
    { name: 'bn254 add', msg: precompile(6, '0x' + G1 + G1), native: true },
    { name: 'bn254 mul', msg: precompile(7, '0x' + G1 + word(2)), native: true },
    { name: 'bn254 pairing of nothing', msg: precompile(8, '0x'), native: true },
    { name: 'blake2f', msg: precompile(9, '0x' + blake2Input), native: true },
    // a precompile's own failure has no ethereumjs wording in the native simulator: left to the JS EVM
    { name: 'blake2f of a bad length', msg: precompile(9, '0x' + blake2Input + '00'), native: false },
    { name: 'BLS12-381 G1 add', msg: precompile(0x0b, '0x' + blsG1 + blsG1), native: true },
    {
      name: 'BLS12-381 G1 add from a contract',
      msg: viaProxy(bytes(addr(0x0b)), '0x' + blsG1 + blsG1),
      native: true,
    },
    // point evaluation: revm's arkworks KZG and the JS EVM's micro-eth-signer must agree on every input;
    // a top-level failure has no ethereumjs wording in the native simulator (left to the JS EVM), a
    // failure inside a contract's call is answered natively
    { name: 'point evaluation', msg: precompile(0x0a, POINT_EVALUATION.valid), native: true },
    {
      name: 'point evaluation of the zero polynomial',
      msg: precompile(0x0a, POINT_EVALUATION.validAtInfinity),
      native: true,
    },
    {
      name: 'point evaluation of a bad proof',
      msg: precompile(0x0a, POINT_EVALUATION.wrongY),
      native: false,
    },
    {
      name: 'point evaluation of a bad length',
      msg: precompile(0x0a, POINT_EVALUATION.short),
      native: false,
    },
    ...Object.entries({ ...POINT_EVALUATION, ...POINT_EVALUATION_EDGES }).map(([name, data]) => ({
      name: `point evaluation (${name}) from a contract`,
      msg: viaProxy(bytes(addr(0x0a)), data),
      native: true,
    })),
    {
      name: 'bn254 add of a point off the curve, from a contract',
      msg: viaProxy(bytes(addr(6)), '0x' + word(1) + word(3) + G1),
      native: true,
    },
    {
      name: 'BLS12-381 G1 add of a bad length, from a contract',
      msg: viaProxy(bytes(addr(0x0b)), '0x00'),
      native: true,
    },
    { name: 'sha256 from a contract', msg: viaProxy(bytes(addr(2)), '0x616263'), native: true },
    {
      name: 'bn254 add of a point off the curve',
      msg: precompile(6, '0x' + word(1) + word(3) + G1),
      native: false,
    },
    {
      name: 'modexp out of gas',
      msg: precompile(5, modexpHeavy),
      gas: floorGas(modexpHeavy) + 100n,
      native: true,
    },
    // messages that cannot run
    {
      name: 'value without the balance',
      msg: { from: poor, to: bytes(w1.address), value: 1n },
      native: true,
    },
    {
      name: 'intrinsic gas too low',
      msg: { from, to: c.echoReturn, data: bytes('0x1234') },
      gas: 21_000n,
      native: false,
    },
    {
      name: 'gas below the EIP-7623 floor',
      msg: { from, to: c.echoReturn, data: bytes('0x' + 'ff'.repeat(100)) },
      gas: 21_000n + 1600n + 100n,
      native: false,
    },
    // what the native simulator leaves to the JS EVM
    { name: 'a fee-paying call', msg: { from, to: c.env, maxFeePerGas: 10n * GWEI }, native: false },
    {
      name: 'an access list',
      msg: {
        from,
        to: c.sload,
        data: bytes('0x' + word(1)),
        accessList: [{ address: c.sload, storageKeys: [bytes('0x' + word(1))] }],
      },
      native: false,
    },
    { name: 'a creation', msg: { from, data: bytes(deployCode(RUNTIMES.echoReturn)) }, native: false },
  ];

  for (const k of cases) {
    await t.test(k.name, async () => {
      const js = await simulation.open(height, k.msg);
      const nat = await simulation.open(height, k.msg);
      try {
        const gas = k.gas ?? js.callGas(k.msg);
        const a = await outcome(() => nat.callNative(native, k.msg, gas));
        const b = await outcome(() => js.call(k.msg, gas));
        if (k.native !== 'either') assert.equal(a !== undefined, k.native, `answered natively`);
        if (a) assert.deepEqual(a, b);
      } finally {
        js.close();
        nat.close();
      }
    });
  }

  // eth_estimateGas runs its attempts natively where it can: the same estimate (or error) either way
  await t.test('eth_estimateGas: the same estimates with the native simulator', async () => {
    const sim = native as NativeSimulator;
    let answeredNatively = 0;
    for (const k of cases) {
      if (k.gas !== undefined) continue;
      const js = await simulation.open(height, k.msg);
      const nat = await simulation.open(height, k.msg);
      try {
        const a = await outcome<EstimateResult>(() => estimateGas(nat, k.msg, sim));
        const b = await outcome<EstimateResult>(() => estimateGas(js, k.msg));
        assert.deepEqual(a, b, k.name);
        if (k.native === true) answeredNatively++;
      } finally {
        js.close();
        nat.close();
      }
    }
    assert.ok(answeredNatively >= 5, `${answeredNatively} estimates of calls the native simulator runs`);
  });

  // An older height is read from the State Store, asynchronously: a native call that finds a key not
  // loaded yet is run again once it is (up to 8 times), else the JS EVM takes it over.
  await t.test('an older height, read asynchronously', async () => {
    const old = height - 3;
    const balanceOf = (who: string): CallMessage => ({
      to: tokenAddress,
      data: bytes(token.encodeFunctionData('balanceOf', [who])),
    });
    const both = async (msg: CallMessage) => {
      const js = await simulation.open(old, msg);
      const nat = await simulation.open(old, msg);
      try {
        const gas = js.callGas(msg);
        return {
          nat: await outcome(() => nat.callNative(native, msg, gas)),
          js: await outcome(() => js.call(msg, gas)),
        };
      } finally {
        js.close();
        nat.close();
      }
    };
    // cold: whichever engine answers, the answer is the JS EVM's
    const cold = await both(balanceOf(w0.address));
    if (cold.nat) assert.deepEqual(cold.nat, cold.js);
    // warm but for the new holder's slot: one miss, one rerun, answered natively
    const warm = await both(balanceOf(addr(0x5107)));
    assert.ok(warm.nat, 'answered natively');
    assert.deepEqual(warm.nat, warm.js);
  });

  // the same calls as JSON-RPC eth_call, through two dispatchers: the native simulator on and off
  const rpcWith = (nativeSimulator: boolean) => {
    const logger = memoryLogger();
    const rpc = new EvmRpc(
      { evm: { ...evm, nativeSimulator }, genesis, logger, registry: new Registry() },
      {
        chain,
        ss: node.modules.ss,
        sc: node.modules.sc,
        mempool: node.modules.mempool,
        submission: node.modules.submission,
        sync: () => node.syncStatus(),
      },
    );
    t.after(() => rpc.close());
    const engine = logger.records.find((r) => r.msg === 'eth_call engine')?.fields.engine;
    return { rpc, engine };
  };
  const on = rpcWith(true);
  const off = rpcWith(false);
  assert.equal(on.engine, 'native (revm)');
  assert.equal(off.engine, 'js');
  const json = (m: CallMessage, gas?: bigint) => ({
    ...(m.from ? { from: hexOf(m.from) } : {}),
    ...(m.to ? { to: hexOf(m.to) } : {}),
    ...(m.data ? { input: hexOf(m.data) } : {}),
    ...(m.value !== undefined ? { value: '0x' + m.value.toString(16) } : {}),
    ...(m.maxFeePerGas !== undefined ? { maxFeePerGas: '0x' + m.maxFeePerGas.toString(16) } : {}),
    ...(gas !== undefined ? { gas: '0x' + gas.toString(16) } : {}),
    ...(m.accessList
      ? {
          accessList: m.accessList.map((e) => ({
            address: hexOf(e.address),
            storageKeys: e.storageKeys.map(hexOf),
          })),
        }
      : {}),
  });
  const answer = async (rpc: EvmRpc, params: unknown[]) => {
    try {
      return { result: await rpc.dispatcher.call('eth_call', params) };
    } catch (err) {
      return { error: toJsonRpcError(err, (e) => assert.fail(`internal error: ${String(e)}`)) };
    }
  };
  const block = '0x' + height.toString(16);
  for (const k of cases) {
    const params = [json(k.msg, k.gas), block];
    assert.deepEqual(await answer(on.rpc, params), await answer(off.rpc, params), k.name);
  }
});
