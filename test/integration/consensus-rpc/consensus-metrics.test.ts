/**
 * The consensus metrics' rules on blocks a single-validator chain never produces: a commit listing
 * a validator with an absent vote counts a missed block for it (and only it), an inactive validator's status
 * is 0, and height_status follows the at-network-height signal. Checked through the text format.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { BlockIdFlag, type Commit, EMPTY_BLOCK_ID, GO_ZERO_TIME } from '../../../src/codec/index.ts';
import { recordConsensusMetrics } from '../../../src/producer/metrics.ts';
import { parsePrometheusText } from './prom-text.ts';

const A = new Uint8Array(20).fill(0xaa);
const B = new Uint8Array(20).fill(0xbb);
const label = (a: Uint8Array) => Buffer.from(a).toString('hex').toUpperCase();

function commit(height: number, signers: Uint8Array[], absent: Uint8Array[] = []): Commit {
  return {
    height,
    round: 0,
    blockId: EMPTY_BLOCK_ID,
    signatures: [
      ...signers.map((a) => ({
        blockIdFlag: BlockIdFlag.Commit,
        validatorAddress: a,
        timestamp: { seconds: 1, nanos: 0 },
        signature: new Uint8Array(64),
      })),
      // as FinalizeBlock's commit info lists them: every validator of the set, with its address
      ...absent.map((a) => ({
        blockIdFlag: BlockIdFlag.Absent,
        validatorAddress: a,
        timestamp: GO_ZERO_TIME,
        signature: new Uint8Array(0),
      })),
    ],
  };
}

test('missed blocks per validator, validator status and height status', async () => {
  const registry = new Registry();
  const listeners = new Set<(c: { block: { lastCommit: Commit } }) => void>();
  let atNetworkHeight = true;
  const stop = recordConsensusMetrics(registry, 'tm', {
    onBlock: (l) => (listeners.add(l), () => listeners.delete(l)),
    validatorSet: () => [A, B],
    validatorStatuses: () => [
      { address: A, active: true },
      { address: B, active: false },
    ],
    atNetworkHeight: () => atNetworkHeight,
  });
  const emit = (c: Commit) => listeners.forEach((l) => l({ block: { lastCommit: c } }));
  const read = async () => {
    const families = parsePrometheusText(await registry.metrics());
    const get = (name: string, address?: string) =>
      families
        .get(name)!
        .samples.find((s) => address === undefined || s.labels.validator_address === address)!.value;
    return {
      missedA: get('tm_consensus_validator_missed_blocks', label(A)),
      missedB: get('tm_consensus_validator_missed_blocks', label(B)),
      statusA: get('tm_consensus_validator_status', label(A)),
      statusB: get('tm_consensus_validator_status', label(B)),
      heightStatus: get('tm_consensus_height_status'),
    };
  };

  assert.deepEqual(await read(), { missedA: 0, missedB: 0, statusA: 1, statusB: 0, heightStatus: 1 });
  emit(commit(0, [])); // the first block's empty commit counts for nobody
  emit(commit(1, [A, B]));
  assert.deepEqual(await read(), { missedA: 0, missedB: 0, statusA: 1, statusB: 0, heightStatus: 1 });
  emit(commit(2, [A], [B]));
  emit(commit(3, [B], [A]));
  emit(commit(4, [A], [B]));
  atNetworkHeight = false;
  assert.deepEqual(await read(), { missedA: 1, missedB: 2, statusA: 1, statusB: 0, heightStatus: 0 });

  stop();
  emit(commit(5, [], [A, B]));
  assert.equal((await read()).missedA, 1, 'no counting after unsubscribing');
});

test('the series follow the validator set: one that joins counts from its first block, a jailed one reads 0 and stops counting once the commits no longer list it', async () => {
  const registry = new Registry();
  const listeners = new Set<(c: { block: { lastCommit: Commit } }) => void>();
  let validators = [{ address: A, active: true }];
  recordConsensusMetrics(registry, 'tm', {
    onBlock: (l) => (listeners.add(l), () => listeners.delete(l)),
    validatorSet: () => validators.filter((v) => v.active).map((v) => v.address),
    validatorStatuses: () => validators,
    atNetworkHeight: () => true,
  });
  const emit = (c: Commit) => listeners.forEach((l) => l({ block: { lastCommit: c } }));
  const sample = async (name: string, a: Uint8Array) =>
    parsePrometheusText(await registry.metrics())
      .get(name)
      ?.samples.find((s) => s.labels.validator_address === label(a))?.value;

  emit(commit(1, [A]));
  assert.equal(await sample('tm_consensus_validator_missed_blocks', B), undefined);
  assert.equal(await sample('tm_consensus_validator_status', B), undefined);
  validators = [...validators, { address: B, active: true }]; // B joins the set
  assert.equal(await sample('tm_consensus_validator_status', B), 1);
  emit(commit(2, [A, B]));
  assert.equal(
    await sample('tm_consensus_validator_missed_blocks', B),
    0,
    'a zero series from its first block',
  );
  emit(commit(3, [A], [B]));
  assert.equal(await sample('tm_consensus_validator_missed_blocks', B), 1);
  validators = [validators[0], { address: B, active: false }]; // B is jailed
  assert.equal(await sample('tm_consensus_validator_status', B), 0);
  // CometBFT drops it two blocks later: the commits until then still list it, and it missed them
  emit(commit(4, [A], [B]));
  assert.equal(await sample('tm_consensus_validator_missed_blocks', B), 2);
  emit(commit(5, [A]));
  assert.equal(await sample('tm_consensus_validator_missed_blocks', B), 2, 'out of the set, not counted');
});
