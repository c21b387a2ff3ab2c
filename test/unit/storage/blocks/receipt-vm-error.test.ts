/** The failed-tx trailer of receipt records (vmError, revertData) and records written without it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeReceipt,
  encodeReceipt,
  scanReceiptLogs,
} from '../../../../src/storage/blocks/receipt-codec.ts';
import type { Log } from '../../../../src/storage/blocks/types.ts';
import { filled, makeBlock, pools, prng } from './fixtures.ts';

const shape = { evmTxs: 2, cosmosTxs: 0, logsPerTx: 1, ...pools(2, 2) };

test('a failed receipt keeps its VM error and revert data; a receipt without them decodes as before', () => {
  const { receipts } = makeBlock(4, filled(32, 3), shape, prng(3));
  const failed = {
    ...receipts[0],
    status: 0 as const,
    vmError: 'revert',
    revertData: Uint8Array.of(8, 0xc3, 0x79, 0xa0),
  };
  assert.deepEqual(decodeReceipt(encodeReceipt(failed)), failed);
  const outOfGas = { ...receipts[1], status: 0 as const, vmError: 'out of gas' };
  assert.deepEqual(decodeReceipt(encodeReceipt(outOfGas)), outOfGas);

  // A record without the trailer (a success, or one stored before it existed) has neither field.
  const plain = { ...receipts[0] };
  const decoded = decodeReceipt(encodeReceipt(plain));
  assert.equal('vmError' in decoded, false);
  assert.deepEqual(decoded, plain);
  assert.equal(encodeReceipt(failed).length > encodeReceipt(plain).length, true);

  // The log scan stops before the trailer and still finds the logs.
  const logs: Log[] = [];
  scanReceiptLogs(encodeReceipt(failed), () => true, logs);
  assert.deepEqual(logs, failed.logs);
});

test('a receipt of a tx that failed before execution keeps its flag; other records keep their bytes', () => {
  const { receipts } = makeBlock(4, filled(32, 3), { ...shape, logsPerTx: 0 }, prng(4));
  const reason = 'insufficient funds for gas * price + value: address 0x00 have 1 want 2';
  const notExecuted = {
    ...receipts[1],
    status: 0 as const,
    gasUsed: 0n,
    vmError: reason,
    failedBeforeExecution: true as const,
  };
  const encoded = encodeReceipt(notExecuted);
  assert.deepEqual(decodeReceipt(encoded), notExecuted);
  // the flag is one byte after the failed-tx trailer, which older decoders never read past
  const { failedBeforeExecution: _, ...reverted } = notExecuted;
  const plainFailed = encodeReceipt(reverted);
  assert.deepEqual(encoded.subarray(0, plainFailed.length), plainFailed);
  assert.deepEqual([...encoded.subarray(plainFailed.length)], [1]);
  assert.equal('failedBeforeExecution' in decodeReceipt(plainFailed), false);
  assert.throws(() => decodeReceipt(Uint8Array.from([...plainFailed, 2])), /receipt trailer flags 2/);
});
