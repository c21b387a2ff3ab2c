/**
 * /lag_status with peers: a consensus RPC over the node's real adapters, with a NetworkView whose
 * peers report heights ahead of ours (P2P does not exist yet, so the node's own view has no peers).
 * Over `lag-threshold` the route answers HTTP 417 and -32604 "Lag is too high" in both forms.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PeerView } from '../../../src/rpc/consensus/types.ts';
import { consensusRpcOver, get, post, startRpcNode } from './helpers.ts';

test('/lag_status answers 417 and -32604 when the best peer is more than lag-threshold ahead', async (t) => {
  const { node, home } = await startRpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  // Without empty blocks and txs the chain stays at its height, so the expected lags are exact.
  const peers: PeerView[] = [];
  let catchingUp = false;
  const url = await consensusRpcOver(
    t,
    { node, home },
    {
      sync: () => ({ ...node.syncStatus(), ...(catchingUp ? { catchingUp: true } : {}) }),
      replace: {
        network: {
          listening: () => true,
          listeners: () => ['Listener(@tcp://0.0.0.0:26656)'],
          peers: () => peers,
        },
      },
    },
  );
  const own = node.modules.chain.latestHeight;

  peers.push({
    id: 'aa'.repeat(20),
    listenAddr: 'tcp://10.0.0.2:26656',
    moniker: 'peer-a',
    height: own + 10,
  });
  const ok = await get(url, '/lag_status');
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body.result, {
    current_height: String(own),
    max_peer_height: String(own + 10),
    lag: '10',
  });

  peers.push({
    id: 'bb'.repeat(20),
    listenAddr: 'tcp://10.0.0.3:26656',
    moniker: 'peer-b',
    height: own + 11,
  });
  const expected = { code: -32604, message: 'Lag is too high', data: 'lag 11 exceeds the threshold 10' };
  const g = await get(url, '/lag_status');
  assert.equal(g.status, 417);
  assert.deepEqual(g.body, { jsonrpc: '2.0', id: -1, error: expected });
  const p = await post(url, 'lag_status', {}, 3);
  assert.equal(p.status, 417);
  assert.deepEqual(p.body, { jsonrpc: '2.0', id: 3, error: expected });

  // catching up by its own signals while no peer shows how far (block sync, heights from before a
  // stall): a 503 saying so, not a 200 with a lag that reads as current
  peers.length = 0;
  catchingUp = true;
  const unknown = await get(url, '/lag_status');
  assert.equal(unknown.status, 503);
  assert.equal(unknown.body.error.message, 'Node is catching up');
  assert.match(
    unknown.body.error.data,
    /^current_height \d+, max_peer_height \d+: catching up, and no peer's height/,
  );
  catchingUp = false;
  assert.equal((await get(url, '/lag_status')).status, 200, 'current again: 200');
  peers.push(
    { id: 'aa'.repeat(20), listenAddr: 'tcp://10.0.0.2:26656', moniker: 'peer-a', height: own + 10 },
    { id: 'bb'.repeat(20), listenAddr: 'tcp://10.0.0.3:26656', moniker: 'peer-b', height: own + 11 },
  );

  // net_info lists the peers the view reports.
  const net = await post(url, 'net_info');
  assert.deepEqual(net.body.result, {
    listening: true,
    listeners: ['Listener(@tcp://0.0.0.0:26656)'],
    n_peers: '2',
    peers: peers.map((x) => ({
      node_info: { id: x.id, listen_addr: x.listenAddr, moniker: x.moniker },
      is_outbound: false,
      remote_ip: '',
    })),
  });
});
