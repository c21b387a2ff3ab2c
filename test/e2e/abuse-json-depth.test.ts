/**
 * Parameters nested thousands of levels deep once overflowed the stack in the parameter codecs (an
 * internal error at best). The transports now refuse a body nested deeper than `[evm] max_json_depth`
 * before parsing it: -32600 naming the key, over HTTP (fast path and node:http) and WebSocket, and
 * the consensus RPC refuses it too; the node keeps answering meanwhile.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { alive, BlockNumberProbe, spawnDev } from '../helpers/abuse.ts';

const DEEP = '['.repeat(20_000) + ']'.repeat(20_000);

async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  assert.equal(res.status, 200);
  return res.json();
}

test('a request nested deeper than max_json_depth is refused with -32600 on every JSON-RPC transport', async (t) => {
  const node = await spawnDev(t, { 'evm.max_json_depth': '16' });
  const probe = new BlockNumberProbe(t, node.http);

  const depthError = {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: 'invalid request: JSON nested more than 16 levels deep (max_json_depth)',
    },
  };
  for (const method of ['eth_getBlockByNumber', 'eth_getBalance', 'eth_call', 'debug_traceCall']) {
    const body = `{"jsonrpc":"2.0","id":7,"method":"${method}","params":${DEEP}}`;
    // the fast path, and node:http (an Origin header hands the request to it)
    assert.deepEqual(await postRaw(node.http, body), depthError);
    assert.deepEqual(await postRaw(node.http, body, { origin: 'https://app.example' }), depthError);
    // inside a batch too
    assert.deepEqual(await postRaw(node.http, `[${body}]`), depthError);
  }
  // just within the limit: answered as usual (params of 15 levels in a body of 16)
  const within = `{"jsonrpc":"2.0","id":8,"method":"eth_getBlockByNumber","params":${'['.repeat(15)}${']'.repeat(15)}}`;
  const answer = await postRaw(node.http, within);
  assert.equal(answer.id, 8);
  assert.equal(answer.error.code, -32602, JSON.stringify(answer));
  // brackets inside strings do not count
  const quoted = await postRaw(
    node.http,
    JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'web3_sha3', params: ['['.repeat(100)] }),
  );
  assert.equal(quoted.error.code, -32602);

  const ws = new WebSocket(node.ws);
  t.after(() => ws.terminate());
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const reply = new Promise<any>((resolve) => ws.once('message', (m) => resolve(JSON.parse(String(m)))));
  ws.send(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":${DEEP}}`);
  assert.deepEqual(await reply, depthError);

  const consensus = await postRaw(
    `http://127.0.0.1:${node.ports.consensus}`,
    `{"jsonrpc":"2.0","id":1,"method":"block","params":${DEEP}}`,
  );
  assert.equal(consensus.error.code, -32600);
  assert.match(consensus.error.data, /nested more than 64 levels deep/);

  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber during the test: ${JSON.stringify(report)}`);
  assert.ok(alive(node), 'the node is still running');
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0, 'eth_blockNumber answered');
});
