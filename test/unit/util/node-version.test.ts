import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { unsupportedNode } from '../../../src/util/node-version.ts';

test('chaind refuses a Node.js older than 24 with a message saying which Node to use', () => {
  assert.equal(unsupportedNode(process.versions.node), undefined);
  assert.equal(unsupportedNode('24.0.0'), undefined);
  assert.equal(unsupportedNode('25.1.0'), undefined);
  for (const old of ['20.20.2', '22.18.0', '23.11.1']) {
    const why = unsupportedNode(old);
    assert.match(
      why ?? '',
      new RegExp(`needs Node\\.js 24 or newer, and this is Node\\.js ${old.replaceAll('.', '\\.')}`),
    );
    assert.match(why ?? '', /npm start/);
  }
  assert.ok(unsupportedNode('garbage'));
});

test('package.json declares no engines: root npm ci on the system Node 20 prints no EBADENGINE', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.engines, undefined);
  const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8'));
  assert.equal(lock.packages[''].engines, undefined);
});
