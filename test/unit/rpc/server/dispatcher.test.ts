/** The dispatcher's decoding and the one error table, with a small real method table. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MempoolError, rejectMessages } from '../../../../src/mempool/errors.ts';
import { optional, p } from '../../../../src/rpc/codecs/params.ts';
import { Dispatcher, method } from '../../../../src/rpc/server/dispatcher.ts';
import { LimitExceededError, RpcError, toJsonRpcError } from '../../../../src/rpc/server/errors.ts';
import { ChainError, type ErrorCode } from '../../../../src/util/errors.ts';

test('handlers receive decoded values; optional trailing params may be absent', async () => {
  const seen: unknown[] = [];
  const d = new Dispatcher({
    sum: method([p.quantity, optional(p.quantity)], (a, b) => {
      seen.push([a, b]);
      return '0x' + (a + (b ?? 0n)).toString(16);
    }),
  });
  assert.deepEqual(await d.handle({ jsonrpc: '2.0', id: 1, method: 'sum', params: ['0x2', '0x3'] }), {
    jsonrpc: '2.0',
    id: 1,
    result: '0x5',
  });
  assert.deepEqual(await d.handle({ jsonrpc: '2.0', id: 2, method: 'sum', params: ['0x2'] }), {
    jsonrpc: '2.0',
    id: 2,
    result: '0x2',
  });
  assert.deepEqual(seen, [
    [2n, 3n],
    [2n, undefined],
  ]);
  // the handler never runs when a param is bad
  const bad = await d.handle({ jsonrpc: '2.0', id: 3, method: 'sum', params: ['0x2', 'x'] });
  assert.deepEqual(bad?.error, { code: -32602, message: 'invalid argument 1: hex string without 0x prefix' });
  assert.equal(seen.length, 2);
  // a handler returning undefined answers null (a JSON-RPC result must be present)
  const d2 = new Dispatcher({ nothing: method([], () => undefined) });
  assert.deepEqual(await d2.handle({ jsonrpc: '2.0', id: 'n', method: 'nothing' }), {
    jsonrpc: '2.0',
    id: 'n',
    result: null,
  });
});

test('the error table: typed errors map to their codes, the rest is -32000 or -32603', () => {
  const internal: unknown[] = [];
  const map = (e: unknown) => toJsonRpcError(e, (x) => internal.push(x));
  assert.deepEqual(map(new MempoolError('nonce_too_low', rejectMessages.nonceTooLow(5n, 3n))), {
    code: -32000,
    message: 'nonce too low: next nonce 5, tx nonce 3',
  });
  // only a cast gets a code past the union; the table still answers a plain failure for it
  assert.deepEqual(map(new ChainError('SOMETHING_NEW' as ErrorCode, 'plain failure')), {
    code: -32000,
    message: 'plain failure',
  });
  assert.deepEqual(map(new LimitExceededError('too many')), { code: -32005, message: 'too many' });
  assert.deepEqual(map(new RpcError('EXECUTION_REVERTED', 'execution reverted', '0x08c379a0')), {
    code: 3,
    message: 'execution reverted',
    data: '0x08c379a0',
  });
  assert.equal(internal.length, 0);
  const bug = new TypeError('x is undefined');
  assert.deepEqual(map(bug), { code: -32603, message: 'internal error' });
  assert.deepEqual(internal, [bug]);
});

test('an unexpected failure is reported with the method name and answered -32603', async () => {
  const reported: [unknown, string][] = [];
  const d = new Dispatcher(
    {
      broken: method([], () => {
        throw new RangeError('boom');
      }),
    },
    { onInternalError: (err, m) => reported.push([err, m]) },
  );
  assert.deepEqual(await d.handle({ jsonrpc: '2.0', id: 1, method: 'broken' }), {
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32603, message: 'internal error' },
  });
  assert.equal(reported[0][1], 'broken');
  assert.equal((reported[0][0] as Error).message, 'boom');
  assert.deepEqual(d.methodNames, ['broken']);
});
