import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import {
  checkArchitectureTable,
  checkImportCycles,
  checkLayers,
  layerOf,
  layerTable,
} from '../../../scripts/check-layers.ts';

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

const cycles = resolve(root, 'test/fixtures/import-cycles');

test('import cycles in the fixture are reported, within a folder and across folders, type-only edges included', () => {
  assert.deepEqual(checkLayers(cycles), [], 'the fixture breaks no layer rule: only its cycles fail it');
  assert.deepEqual(checkImportCycles(cycles), [
    'import cycle: src/storage/sc/commit.ts → src/storage/sc/memiavl/tree.ts → src/storage/sc/memiavl/node.ts → src/storage/sc/commit.ts',
    'import cycle: src/util/a.ts → src/util/b.ts → src/util/a.ts',
  ]);
});

test('the lint script exits non-zero on an import cycle and names its files', () => {
  const r = spawnSync(process.execPath, [resolve(root, 'scripts/check-layers.ts'), '--root', cycles], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^import cycle: src\/util\/a\.ts → src\/util\/b\.ts → src\/util\/a\.ts$/m);
  assert.match(r.stderr, /import cycles: 2/);
});

// node/node.ts and node/operational-services.ts import each other until the change that owns node/
// lands; any other cycle fails here.
const KNOWN_CYCLE = 'import cycle: src/node/node.ts → src/node/operational-services.ts → src/node/node.ts';

test('the project has no import cycle but the known one in node/', () => {
  assert.deepEqual(
    checkImportCycles(root).filter((c) => c !== KNOWN_CYCLE),
    [],
  );
});

test("ARCHITECTURE.md's layer table is the one generated from LAYERS, and a changed row is reported", () => {
  assert.deepEqual(checkArchitectureTable(root), []);
  const copy = mkdtempSync(join(tmpdir(), 'architecture-'));
  try {
    const text = readFileSync(resolve(root, 'ARCHITECTURE.md'), 'utf8');
    assert.ok(text.includes(layerTable()));
    writeFileSync(join(copy, 'ARCHITECTURE.md'), text.replace('| `bin/` |', '| `bin/` | and more'));
    assert.match(checkArchitectureTable(copy).join('\n'), /layer table differs from LAYERS/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
