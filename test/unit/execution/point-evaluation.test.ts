/**
 * Block execution of transactions reaching the point evaluation precompile (0x0a, EIP-4844): a valid
 * proof succeeds with FIELD_ELEMENTS_PER_BLOB and BLS_MODULUS, every bad input fails the call and
 * consumes all its gas — the transaction is executed and included either way, never rejected.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockExecutor, type EthTxOutcome, isRejection } from '../../../src/execution/block-executor.ts';
import { createChainCommon } from '../../../src/execution/chain-config.ts';
import { decodeEthTransaction } from '../../../src/execution/transactions.ts';
import { CHAIN_ID, devBlockEnv, devState, devWallets, signed } from '../../helpers/dev-chain.ts';
import {
  POINT_EVALUATION,
  POINT_EVALUATION_GAS,
  POINT_EVALUATION_RETURN,
} from '../../fixtures/point-evaluation.ts';

const common = createChainCommon({ chainId: CHAIN_ID });
const GWEI = 10n ** 9n;
const POINT_EVALUATION_ADDRESS = '0x' + '0a'.padStart(40, '0');
const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const fee = { type: 2, maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: 0n } as const;

/**
 * Calls calldata word 0 with the rest of the calldata and all its gas, and returns the success flag
 * followed by the return data.
 */
const PROXY_RUNTIME =
  '36602090038060205f37' + '5f5f825f5f5f355af1' + '5f52' + '3d5f60203e' + '3d602001' + '5ff3';
const deployCode = (runtime: string) =>
  '0x61' + (runtime.length / 2).toString(16).padStart(4, '0') + '80600c6000396000f3' + runtime;

/** Standard calldata cost (EIP-2028). */
function calldataGas(data: string): bigint {
  const b = bytes(data);
  const zeros = b.filter((x) => x === 0).length;
  return BigInt(4 * zeros + 16 * (b.length - zeros));
}

async function executor() {
  const { overlay } = devState();
  return BlockExecutor.create(common, devBlockEnv(), overlay);
}

async function run(ex: BlockExecutor, raw: Uint8Array): Promise<EthTxOutcome> {
  const r = await ex.execute(decodeEthTransaction(raw, common));
  if (isRejection(r)) assert.fail(`rejected: ${r.reason}`);
  return r;
}

/** Signs a call of `to` from dev account 0 and runs it; it must not be rejected. */
async function call(ex: BlockExecutor, nonce: number, to: string, data: string, gasLimit: number) {
  return run(ex, await signed(devWallets[0], { ...fee, nonce, to, data, gasLimit }));
}

test('a transaction calling 0x0a with a valid proof succeeds and returns 4096 and BLS_MODULUS', async () => {
  const ex = await executor();
  const data = POINT_EVALUATION.valid;
  const out = await call(ex, 0, POINT_EVALUATION_ADDRESS, data, 200_000);
  assert.equal(out.status, 1, `failed: ${out.error}`);
  assert.equal(hex(out.returnData), POINT_EVALUATION_RETURN);
  assert.equal(out.gasUsed, 21_000n + calldataGas(data) + POINT_EVALUATION_GAS);

  const zero = await call(ex, 1, POINT_EVALUATION_ADDRESS, POINT_EVALUATION.validAtInfinity, 200_000);
  assert.equal(zero.status, 1, `the zero polynomial's proof failed: ${zero.error}`);
  assert.equal(hex(zero.returnData), POINT_EVALUATION_RETURN);
});

test('a transaction calling 0x0a with bad input is included, fails and consumes all its gas', async () => {
  const ex = await executor();
  const bad = {
    'a proof of another y': POINT_EVALUATION.wrongY,
    'y not in the field': POINT_EVALUATION.yNotInField,
    'a commitment off the curve': POINT_EVALUATION.commitmentNotOnCurve,
    'a versioned hash of another commitment': POINT_EVALUATION.wrongVersionedHash,
    '191 bytes': POINT_EVALUATION.short,
    'no input': '0x',
  };
  let nonce = 0;
  for (const [name, data] of Object.entries(bad)) {
    const out = await call(ex, nonce++, POINT_EVALUATION_ADDRESS, data, 150_000);
    assert.equal(out.status, 0, name);
    assert.equal(out.gasUsed, 150_000n, `${name}: all the gas is consumed`);
    assert.equal(out.returnData.length, 0, name);
  }
});

test('a contract calling 0x0a gets the result; a failing call returns 0 to it without reverting the tx', async () => {
  const ex = await executor();
  const deploy = await run(
    ex,
    await signed(devWallets[0], { ...fee, nonce: 0, data: deployCode(PROXY_RUNTIME), gasLimit: 200_000 }),
  );
  assert.equal(deploy.status, 1);
  const proxy = hex(deploy.contractAddress!);
  const target = POINT_EVALUATION_ADDRESS.slice(2).padStart(64, '0');
  const good = await call(ex, 1, proxy, '0x' + target + POINT_EVALUATION.valid.slice(2), 300_000);
  assert.equal(good.status, 1, `failed: ${good.error}`);
  assert.equal(hex(good.returnData), '0x' + '1'.padStart(64, '0') + POINT_EVALUATION_RETURN.slice(2));

  const bad = await call(ex, 2, proxy, '0x' + target + POINT_EVALUATION.wrongY.slice(2), 300_000);
  assert.equal(bad.status, 1, 'the proxy itself does not revert');
  assert.equal(
    hex(bad.returnData),
    '0x' + '0'.padStart(64, '0'),
    'the inner call failed with no return data',
  );
  // the inner call got all but 1/64 of the gas left and consumed it
  assert.ok(bad.gasUsed > 290_000n, `gas used ${bad.gasUsed}`);
});
