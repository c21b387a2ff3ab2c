/** CometBFT's own log lines (as v0.38 writes them) and the lines chaind adds beside them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CometLogTranslator, parseCometLine } from '../../../src/cometbft/log-lines.ts';

const A = 'AA'.repeat(32);
const B = 'BB'.repeat(32);
const translator = () =>
  new CometLogTranslator(() => ({ latestHeight: 41, blockHash: (h) => (h === 41 ? 'C0FFEE' : undefined) }));
const one = (t: CometLogTranslator, line: string) => t.translate(parseCometLine(line)!);

test('CometBFT JSON lines keep their level, module, message and fields', () => {
  const rec = parseCometLine(
    '{"level":"error","ts":"2026-11-27T10:00:00Z","_msg":"Error dialing peer","module":"p2p","err":"x"}',
  )!;
  assert.deepEqual(rec, { level: 'error', msg: 'Error dialing peer', module: 'p2p', fields: { err: 'x' } });
  assert.equal(parseCometLine('panic: boom')!.level, 'error');
  assert.equal(parseCometLine('   '), undefined);
});

test('block sync meeting a header that disagrees gives the spec line with the block id and height, once', () => {
  const t = translator();
  const line = `{"level":"error","_msg":"Error in validation","module":"blocksync","height":42,"hash":"DEADBEEF","err":"wrong Block.Header.AppHash.  Expected ${A}, got ${B}"}`;
  assert.deepEqual(one(t, line), [
    {
      level: 'error',
      msg: `wrong Block.Header.AppHash. Expected ${A}, got ${B}`,
      fields: { block_id: 'DEADBEEF', height: 42 },
    },
  ]);
  assert.deepEqual(one(t, line), [], 'CometBFT retries; the line is written once');
  assert.deepEqual(t.mismatch, { expected: A, got: B, height: 42, blockId: 'DEADBEEF' });
});

test("the handshake's app-hash panic names the latest block", () => {
  const t = translator();
  const out = one(
    t,
    `panic: state.AppHash does not match AppHash after replay. Got ${B}, expected ${A}. Did you reset CometBFT without resetting your application's data?`,
  );
  assert.deepEqual(out, [
    {
      level: 'error',
      msg: `wrong Block.Header.AppHash. Expected ${A}, got ${B}`,
      fields: { block_id: 'C0FFEE', height: 41 },
    },
  ]);
});

test('peer lines: a stale peer ID, PEX without peers, a handshake closed by the peer', () => {
  const t = translator();
  assert.deepEqual(
    one(
      t,
      '{"level":"error","_msg":"Error dialing peer","module":"p2p","err":"auth failure: conn.ID (1111111111111111111111111111111111111111) dialed ID (2222222222222222222222222222222222222222) mismatch"}',
    ),
    [
      {
        level: 'error',
        msg: 'failed to handshake with peer',
        fields: {
          expected: '2222222222222222222222222222222222222222',
          actual: '1111111111111111111111111111111111111111',
          err: 'peer ID mismatch: dialed 2222222222222222222222222222222222222222, connected to 1111111111111111111111111111111111111111',
        },
      },
    ],
  );
  assert.equal(
    one(t, '{"level":"info","_msg":"No addresses to dial. Falling back to seeds","module":"pex"}')[0].msg,
    'failed to send request for peers',
  );
  assert.deepEqual(
    one(
      t,
      '{"level":"info","_msg":"Inbound Peer rejected","module":"p2p","err":"auth failure: secret conn failed: EOF","numPeers":0}',
    ),
    [{ level: 'warn', msg: 'peer handshake failed', fields: { err: 'EOF' } }],
  );
  assert.deepEqual(one(t, '{"level":"info","_msg":"Ensure peers","module":"pex","numPeers":3}'), []);
});

test('state sync: a chunk answered missing gets its line and event; a snapshot CometBFT gives up is reported', () => {
  const events: unknown[] = [];
  const t = new CometLogTranslator(
    () => ({ latestHeight: 0, blockHash: () => undefined }),
    (e) => events.push(e),
  );
  assert.deepEqual(
    one(
      t,
      '{"level":"error","_msg":"Failed to add chunk","module":"statesync","height":60,"format":1,"chunk":0,"err":"cannot add nil chunk"}',
    ),
    [
      {
        level: 'warn',
        msg: 'state-sync chunk answered missing: the provider no longer has the snapshot',
        fields: { height: 60, chunk: 0 },
      },
    ],
  );
  assert.deepEqual(
    one(
      t,
      '{"level":"error","_msg":"Timed out waiting for snapshot chunks, rejected snapshot","module":"statesync","height":60,"format":1,"hash":"AB"}',
    ),
    [],
  );
  one(
    t,
    '{"level":"info","_msg":"Fetching snapshot chunk","module":"statesync","height":60,"chunk":0,"total":1}',
  );
  assert.deepEqual(events, [
    { kind: 'chunk-missing', height: 60, chunk: 0 },
    { kind: 'snapshot-given-up', height: 60 },
  ]);
});

test("CometBFT's errors for a write the disk had no room for report the file's directory; other lines do not", () => {
  const reported: (string | undefined)[] = [];
  const t = new CometLogTranslator(
    () => ({ latestHeight: 41, blockHash: () => undefined }),
    () => {},
    (dir) => reported.push(dir),
  );
  one(
    t,
    '{"level":"error","_msg":"CONSENSUS FAILURE!!!","module":"consensus","err":"failed to write {34} msg to consensus WAL due to write /h/data/cometbft/cs.wal/wal: no space left on device; check your file system and restart the node"}',
  );
  one(
    t,
    '{"level":"error","_msg":"CONSENSUS FAILURE!!!","module":"consensus","err":"error writing batch to DB \\"failed to save block\\": (base 1, height 184): write /h/data/cometbft/blockstore.db/000001.log: no space left on device"}',
  );
  // the same words at info, or an error about something else, are not the disk filling
  one(t, '{"level":"info","_msg":"write /h/x: no space left on device","module":"consensus"}');
  one(t, '{"level":"error","_msg":"Error dialing peer","module":"p2p","err":"EOF"}');
  assert.deepEqual(reported, ['/h/data/cometbft/cs.wal', '/h/data/cometbft/blockstore.db']);
});
