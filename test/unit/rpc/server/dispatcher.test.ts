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
  assert.deepEqual(d.methodNames, ['broken', 'rpc_modules']);
});

test('a batch stops at max_response_bytes: the answer that passes it and the later requests get -32003, unrun', async () => {
  let runs = 0;
  const d = new Dispatcher(
    {
      big: method([], () => {
        runs++;
        return 'x'.repeat(400);
      }),
    },
    { maxResponseBytes: 1_000 },
  );
  const batch = [1, 2, 3, 4, 5].map((id) => ({ jsonrpc: '2.0', id, method: 'big' }));
  // a notification after the budget is passed gets no answer at all
  batch.splice(3, 0, { jsonrpc: '2.0', method: 'big' } as never);
  const answers = JSON.parse((await d.handlePayloadText(batch, 100))!);
  const tooLarge = {
    code: -32003,
    message:
      "response too large: the batch's answers exceed max_response_bytes = 1000 bytes ([evm] max_response_bytes)",
  };
  assert.deepEqual(
    answers.map((a: { id: number; result?: string; error?: unknown }) => [a.id, a.result?.length ?? a.error]),
    [
      [1, 400],
      [2, 400],
      [3, tooLarge],
      [4, tooLarge],
      [5, tooLarge],
    ],
  );
  assert.equal(runs, 3, 'requests after the one that passed the budget are not run');
  const single = JSON.parse((await d.handlePayloadText({ jsonrpc: '2.0', id: 9, method: 'big' }, 100))!);
  assert.equal(single.result.length, 400);
  const small = new Dispatcher({ big: method([], () => 'x'.repeat(2_000)) }, { maxResponseBytes: 1_000 });
  assert.deepEqual(
    JSON.parse((await small.handlePayloadText({ jsonrpc: '2.0', id: 9, method: 'big' }, 100))!),
    {
      jsonrpc: '2.0',
      id: 9,
      error: {
        code: -32003,
        message:
          'response too large: the answer exceeds max_response_bytes = 1000 bytes ([evm] max_response_bytes)',
      },
    },
  );
});

test('a limited kind of method runs max at once; the next wait, and past maxWaiting are refused naming the key', async () => {
  const gates: (() => void)[] = [];
  let running = 0;
  let most = 0;
  const d = new Dispatcher(
    {
      slow: method([], async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => gates.push(r));
        running--;
        return 'done';
      }),
    },
    { concurrency: [{ methods: ['slow'], max: 2, maxWaiting: 3, key: '[evm] max_x' }] },
  );
  const calls = Array.from({ length: 7 }, (_, id) => d.handle({ jsonrpc: '2.0', id, method: 'slow' }));
  const refused = await Promise.all(calls.slice(5));
  for (const r of refused) {
    assert.deepEqual(r!.error, {
      code: -32005,
      message:
        'busy: 2 calls like slow are running and 3 waiting, the most this node serves at once ([evm] max_x = 2); try again later',
    });
  }
  while (gates.length > 0 || running > 0) {
    gates.shift()?.();
    await new Promise((r) => setImmediate(r));
  }
  for (const r of await Promise.all(calls.slice(0, 5))) assert.equal(r!.result, 'done');
  assert.equal(most, 2);
});

test('servedNamespaces: another namespace answers -32601 naming the key; rpc_modules lists only what is served', async () => {
  const methods = {
    eth_blockNumber: method([], () => '0x1'),
    debug_traceCall: method([], () => ({})),
    web3_clientVersion: method([], () => 'x'),
  };
  const all = new Dispatcher(methods, {
    servedNamespaces: { names: ['*'], key: '[evm] ws_api', transport: 'WebSocket' },
  });
  assert.deepEqual((await all.handle({ jsonrpc: '2.0', id: 1, method: 'rpc_modules' }))?.result, {
    debug: '1.0',
    eth: '1.0',
    rpc: '1.0',
    web3: '1.0',
  });
  const d = all.extend(
    {},
    { servedNamespaces: { names: ['eth'], key: '[evm] ws_api', transport: 'WebSocket' } },
  );
  assert.equal((await d.handle({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }))?.result, '0x1');
  assert.deepEqual((await d.handle({ jsonrpc: '2.0', id: 2, method: 'debug_traceCall' }))?.error, {
    code: -32601,
    message:
      'the method debug_traceCall is not available: the debug namespace is not served over WebSocket on this node ([evm] ws_api)',
  });
  assert.deepEqual((await d.handle({ jsonrpc: '2.0', id: 3, method: 'rpc_modules' }))?.result, {
    eth: '1.0',
    rpc: '1.0',
  });
  assert.deepEqual(d.methodNames, ['eth_blockNumber', 'rpc_modules']);
});
