import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { checkLayers, layerOf } from '../../../scripts/check-layers.ts';

const root = resolve(import.meta.dirname, '../../..');
const fixture = resolve(root, 'test/fixtures/layers-bad');

test('the project itself has no layer violations', () => {
  assert.deepEqual(checkLayers(root), []);
});

test('every violation in the fixture is reported, and nothing else', () => {
  assert.deepEqual(checkLayers(fixture).sort(), [
    'src/app/bank.ts: imports @ethereumjs/vm; only execution/ may import it',
    'src/app/bank.ts: layer app/ must not import rpc/evm/ (../rpc/evm/eth.ts); dependencies point down',
    'src/rpc/evm/eth.ts: imports ../../storage/kv/engine.ts — rpc/ receives narrow read interfaces from node/, never storage',
    'src/storage/kv/engine.ts: layer storage/kv/ must not import rpc/server/ (../../rpc/server/dispatcher.ts); dependencies point down',
  ]);
});

test('the lint script exits non-zero on the fixture', () => {
  const r = spawnSync(process.execPath, [resolve(root, 'scripts/check-layers.ts'), '--root', fixture], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /layer check: 4 violation\(s\)/);
});

test('files map to the longest registered layer folder', () => {
  assert.equal(layerOf('storage/sc/memiavl/tree.ts'), 'storage/sc');
  assert.equal(layerOf('rpc/evm/eth.ts'), 'rpc/evm');
  assert.equal(layerOf('cli/main.ts'), 'cli');
  assert.equal(layerOf('mystery/x.ts'), undefined);
});
