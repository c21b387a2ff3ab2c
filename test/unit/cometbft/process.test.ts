/**
 * CometBFT's child process as the node supervises it: when it exits on its own, the reason the node
 * reports (in its log and every health signal) is why it stopped. A failed start prints
 * `ERROR: failed to start node: …` and then logs the errors of its own shutdown (a peer's EOF): the
 * start error is the reason. The child here is a script printing what CometBFT printed when its
 * state sync could not reach its light client's RPC server.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CometLogTranslator } from '../../../src/cometbft/log-lines.ts';
import { CometProcess } from '../../../src/cometbft/process.ts';
import { memoryLogger } from '../../../src/util/logger.ts';

const START_ERROR =
  'failed to start node: failed to start state sync: failed to set up light client state provider: post failed: Post "http://10.0.0.3:26657": context deadline exceeded';

test("an exit after a failed start is reported with the start's error, not the shutdown's last one", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chaind-comet-exit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const binary = join(dir, 'cometbft');
  writeFileSync(
    binary,
    [
      '#!/bin/sh',
      `echo '{"level":"info","_msg":"Starting state sync","module":"statesync"}'`,
      `echo 'ERROR: ${START_ERROR}' >&2`,
      `echo '{"level":"error","_msg":"Stopping peer for error","err":"EOF","module":"p2p"}'`,
      'exit 1',
    ].join('\n'),
  );
  chmodSync(binary, 0o755);
  const logger = memoryLogger();
  const reason = await new Promise<string>((resolve) => {
    const p = new CometProcess({
      binary,
      cometHome: dir,
      logger,
      translator: new CometLogTranslator(() => ({ latestHeight: 0, blockHash: () => undefined })),
      onUnexpectedExit: resolve,
    });
    void p.start();
  });
  assert.equal(reason, `cometbft exited with code 1: ${START_ERROR}`);
  assert.ok(logger.records.some((r) => r.level === 'error' && r.msg === START_ERROR));
});
