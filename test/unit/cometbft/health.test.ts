/** Network-mode health on a fake clock and a fake CometBFT RPC: what every health signal reads. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CometHealth } from '../../../src/cometbft/health.ts';
import { silentLogger } from '../../../src/util/logger.ts';

function setup(
  o: { catchingUp?: boolean; peerHeights?: number[]; expectBlocks?: boolean; stateSync?: () => any } = {},
) {
  let now = 1_000_000;
  let height = 10;
  const state = { catchingUp: o.catchingUp ?? false, peers: o.peerHeights ?? [], mismatch: undefined as any };
  const health = new CometHealth({
    call: (async (method: string) =>
      method === 'status'
        ? { sync_info: { catching_up: state.catchingUp, latest_block_height: String(height) } }
        : {
            peers: state.peers.map((h) => ({ peer_state: { round_state: { height: String(h + 1) } } })),
          }) as never,
    latestHeight: () => height,
    stallAfterMs: 10_000,
    expectBlocks: o.expectBlocks ?? true,
    mismatch: () => state.mismatch,
    stateSync: o.stateSync,
    logger: silentLogger,
    pollMs: 60_000,
    now: () => now,
  });
  const poll = () => (health as unknown as { poll(): Promise<void> }).poll();
  return {
    health,
    state,
    poll,
    advance: (ms: number) => (now += ms),
    commit: () => height++,
  };
}

test('current when CometBFT is not syncing and no peer is ahead', async () => {
  const s = setup({ peerHeights: [10, 11] });
  await s.poll();
  assert.deepEqual(s.health.syncStatus(), {
    catchingUp: false,
    halted: false,
    reason: undefined,
    latestHeight: 10,
    bestKnownHeight: 11,
  });
});

test('catching up while CometBFT block-syncs, or while a peer is more than two heights ahead; startingBlock is where it began', async () => {
  const s = setup({ catchingUp: true });
  await s.poll();
  assert.equal(s.health.syncStatus().catchingUp, true);
  assert.equal(s.health.syncStatus().startingHeight, 10);
  s.state.catchingUp = false;
  s.state.peers = [40];
  s.commit();
  await s.poll();
  const st = s.health.syncStatus();
  assert.equal(st.catchingUp, true);
  assert.equal(st.bestKnownHeight, 40);
  assert.equal(st.startingHeight, 10, 'the catch-up that began at 10 is still going');
});

test('halted when no block comes for the stall bound while blocks are expected, and current again after a block', async () => {
  const s = setup();
  await s.poll();
  s.advance(9_999);
  await s.poll();
  assert.equal(s.health.syncStatus().halted, false);
  s.advance(1);
  await s.poll();
  const st = s.health.syncStatus();
  assert.equal(st.halted, true);
  assert.match(st.reason!, /no block committed for 10 s at height 10/);
  s.commit();
  await s.poll();
  assert.equal(s.health.syncStatus().halted, false);
});

test('an idle chain without empty blocks is not halted; a dead engine or an app-hash mismatch is', async () => {
  const idle = setup({ expectBlocks: false });
  await idle.poll();
  idle.advance(60_000);
  assert.equal(idle.health.syncStatus().halted, false);
  idle.state.mismatch = { expected: 'AA', got: 'BB', height: 7 };
  assert.match(
    idle.health.syncStatus().reason!,
    /^wrong Block\.Header\.AppHash\. Expected AA, got BB \(height 7\)/,
  );
  const dead = setup();
  dead.health.engineDied('cometbft exited with code 2: panic: boom');
  assert.deepEqual(
    [dead.health.syncStatus().halted, dead.health.syncStatus().reason],
    [true, 'cometbft exited with code 2: panic: boom'],
  );
});

test('after a stall the node is not current until a poll begun after it moved again has read its peers (their heights from before are stale)', async () => {
  const s = setup({ peerHeights: [10] });
  await s.poll();
  s.advance(10_000);
  assert.equal(s.health.syncStatus().halted, true);
  // it commits again (the partition healed), while the peers' heights it knows are from before
  s.commit();
  let st = s.health.syncStatus();
  assert.equal(st.halted, false);
  assert.equal(st.catchingUp, true, 'not current on peer heights older than its recovery');
  s.advance(1);
  s.state.peers = [30];
  await s.poll();
  assert.equal(s.health.syncStatus().catchingUp, true, 'the fresh poll shows it 19 blocks behind');
  s.state.peers = [11];
  s.advance(1);
  await s.poll();
  st = s.health.syncStatus();
  assert.equal(st.catchingUp, false, 'current once a fresh poll shows no peer ahead');
  // a slow block well under the stall bound does not make it stale
  s.advance(2_000);
  s.commit();
  assert.equal(s.health.syncStatus().catchingUp, false);
});

test('a state sync under way is catching up, with what it waits for, even when CometBFT and its peers say nothing; it is no consensus stall', async () => {
  let progress: any = {
    phase: 'fetching',
    seconds: 40,
    snapshotHeight: 60,
    chunks: 1,
    chunksReceived: 0,
    waitingForChunk: 0,
    secondsSinceLastChunk: 40,
    missingAnswers: 3,
  };
  const s = setup({ stateSync: () => progress });
  await s.poll();
  s.advance(60_000);
  assert.deepEqual(s.health.syncStatus(), {
    catchingUp: true,
    halted: false,
    reason: undefined,
    latestHeight: 10,
    bestKnownHeight: 10,
    startingHeight: 10,
    stateSync: progress,
  });
  progress = undefined;
  assert.equal(s.health.syncStatus().stateSync, undefined);
  assert.equal(
    s.health.syncStatus().halted,
    true,
    'restored and still no block: the stall rule applies again',
  );
});
