/**
 * The network-mode /metrics merge: CometBFT's counters without `_total` are served with it (promtool
 * rejects them otherwise), a family both export appears once, from the side docs/metrics.md names.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeExpositions } from '../../../src/node/metrics-merge.ts';

const ours = `# HELP tm_consensus_height Height of the latest committed block.
# TYPE tm_consensus_height gauge
tm_consensus_height{chain_id="c"} 7
# HELP tm_consensus_validator_missed_blocks Blocks whose commit lacks this validator's signature.
# TYPE tm_consensus_validator_missed_blocks gauge
tm_consensus_validator_missed_blocks{validator_address="AA",chain_id="c"} 0
tm_consensus_validator_missed_blocks{validator_address="BB",chain_id="c"} 2
# HELP tm_mempool_size Transactions held.
# TYPE tm_mempool_size gauge
tm_mempool_size{chain_id="c"} 1
`;

const theirs = `# HELP tm_consensus_height Height of the chain.
# TYPE tm_consensus_height gauge
tm_consensus_height{chain_id="c"} 8
# HELP tm_consensus_validator_missed_blocks Amount of blocks missed per validator.
# TYPE tm_consensus_validator_missed_blocks gauge
tm_consensus_validator_missed_blocks{chain_id="c",validator_address="AA"} 1
# HELP tm_mempool_failed_txs Number of failed transactions.
# TYPE tm_mempool_failed_txs counter
tm_mempool_failed_txs{chain_id="c"} 3
# HELP tm_p2p_peer_send_bytes_total Number of bytes per channel sent to a given peer.
# TYPE tm_p2p_peer_send_bytes_total counter
tm_p2p_peer_send_bytes_total{chID="0x40",chain_id="c",peer_id="ab",note="a=\\"b\\",cD=\\"e"} 5
# HELP tm_p2p_message_receive_bytes_total Number of bytes of each message type received.
# TYPE tm_p2p_message_receive_bytes_total counter
tm_p2p_message_receive_bytes_total{chain_id="c",message_type="x"} 10
# HELP tm_mempool_size Size of the mempool (number of uncommitted transactions).
# TYPE tm_mempool_size gauge
tm_mempool_size{chain_id="c"} 0
`;

test('mergeExpositions: CometBFT counters get _total and snake_case labels, each family once from the side that measures it', () => {
  const merged = mergeExpositions(ours, theirs, 'tm');
  const samples = merged.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  assert.deepEqual(samples.sort(), [
    // CometBFT's height (it measures consensus), chaind's mempool and missed blocks (every validator)
    'tm_consensus_height{chain_id="c"} 8',
    'tm_consensus_validator_missed_blocks{validator_address="AA",chain_id="c"} 0',
    'tm_consensus_validator_missed_blocks{validator_address="BB",chain_id="c"} 2',
    'tm_mempool_failed_txs_total{chain_id="c"} 3',
    'tm_mempool_size{chain_id="c"} 1',
    'tm_p2p_message_receive_bytes_total{chain_id="c",message_type="x"} 10',
    // label names in snake_case, values as they were
    'tm_p2p_peer_send_bytes_total{ch_id="0x40",chain_id="c",peer_id="ab",note="a=\\"b\\",cD=\\"e"} 5',
  ]);
  assert.match(merged, /^# TYPE tm_mempool_failed_txs_total counter$/m);
  assert.match(merged, /^# HELP tm_mempool_failed_txs_total Number of failed transactions\.$/m);
  assert.doesNotMatch(merged, /tm_mempool_failed_txs[ {]/);
  // one header per family
  const types = merged.split('\n').filter((l) => l.startsWith('# TYPE '));
  assert.equal(new Set(types.map((l) => l.split(' ')[2])).size, types.length);
});
