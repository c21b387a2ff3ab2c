/**
 * The point evaluation precompile (0x0a, EIP-4844) through the JSON-RPC API of an in-process dev
 * node: eth_call and eth_estimateGas answer it, and transactions calling it are mined — status 1
 * with a valid proof, status 0 with all their gas consumed with a bad one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POINT_EVALUATION, POINT_EVALUATION_RETURN } from '../../fixtures/point-evaluation.ts';
import { error, GWEI, hex, result, rpcNode, sendAndWait, wallets } from './rpc-helpers.ts';

const POINT_EVALUATION_ADDRESS = '0x' + '0a'.padStart(40, '0');

test('point evaluation (0x0a) over JSON-RPC', async (t) => {
  const { url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const fee = { type: 2, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
  const call = { to: POINT_EVALUATION_ADDRESS, data: POINT_EVALUATION.valid };

  await t.test('eth_call returns FIELD_ELEMENTS_PER_BLOB and BLS_MODULUS for a valid proof', async () => {
    assert.equal(await result(url, 'eth_call', [call, 'latest']), POINT_EVALUATION_RETURN);
    assert.equal(
      await result(url, 'eth_call', [{ ...call, data: POINT_EVALUATION.validAtInfinity }, 'latest']),
      POINT_EVALUATION_RETURN,
    );
  });

  await t.test('eth_call of a bad proof or a bad length fails as a call error', async () => {
    const fails = (data: string) => error(url, 'eth_call', [{ ...call, data }, 'latest']);
    assert.deepEqual(await fails(POINT_EVALUATION.wrongY), { code: -32000, message: 'kzg proof invalid' });
    assert.deepEqual(await fails(POINT_EVALUATION.short), { code: -32000, message: 'invalid input length' });
  });

  await t.test('eth_estimateGas of a valid call covers the precompile', async () => {
    const gas = BigInt(await result(url, 'eth_estimateGas', [call]));
    assert.ok(gas > 21_000n + 50_000n, `estimate ${gas}`);
  });

  await t.test(
    'transactions calling 0x0a are mined: status 1 for a valid proof, 0 for a bad one',
    async () => {
      const good = await sendAndWait(url, wallets[0], { ...fee, nonce: 0, ...call, gasLimit: 150_000 });
      assert.equal(good.receipt.status, '0x1');
      const bad = await sendAndWait(url, wallets[0], {
        ...fee,
        nonce: 1,
        to: POINT_EVALUATION_ADDRESS,
        data: POINT_EVALUATION.wrongY,
        gasLimit: 150_000,
      });
      assert.equal(bad.receipt.status, '0x0');
      assert.equal(bad.receipt.gasUsed, hex(150_000));
    },
  );
});
