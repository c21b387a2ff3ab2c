import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import {
  anchorsOf,
  checkDocLinks,
  docFiles,
  linksOf,
  slug,
  unreachableDocs,
} from '../../../scripts/check-doc-links.ts';

const root = resolve(import.meta.dirname, '../../..');

/** A throw-away repository holding `files` (path → text), removed when the test ends. */
function repo(t: { after(fn: () => void): void }, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'doc-links-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('every relative link of README.md, ARCHITECTURE.md and docs/ resolves', () => {
  const pages = docFiles(root);
  assert.ok(pages.includes('README.md') && pages.includes('docs/operators/README.md'), pages.join(', '));
  assert.deepEqual(checkDocLinks(root), []);
});

test('every page under docs/ is reachable from README.md', () => {
  assert.deepEqual(unreachableDocs(root), []);
});

test('a broken link, a missing heading, a link out of the repository and an orphan page are reported', (t) => {
  const dir = repo(t, {
    'README.md': [
      '# Project',
      '[ops](docs/ops/) and [perf](docs/perf.md#last-run) and [gone](docs/gone.md)',
      '[bad anchor](docs/perf.md#no-such-heading) [out](../elsewhere.md) [web](https://example.com/x.md)',
      '[mail](mailto:a@b.c) [here](#project)',
    ].join('\n'),
    'ARCHITECTURE.md': 'see [the readme](README.md)\n',
    'docs/ops/README.md': '# Ops\n[up](../../README.md) [cli](cli.md)\n',
    'docs/ops/cli.md': '# CLI\n',
    'docs/perf.md': '# Perf\n## Last run\n',
    'docs/orphan.md': '# Nobody links here\n[ops](ops/README.md)\n',
    'docs/node_modules/x/README.md': '[broken](nowhere.md)\n',
  });
  assert.deepEqual(docFiles(dir), [
    'ARCHITECTURE.md',
    'README.md',
    'docs/ops/README.md',
    'docs/ops/cli.md',
    'docs/orphan.md',
    'docs/perf.md',
  ]);
  assert.deepEqual(checkDocLinks(dir), [
    'README.md:2: [gone](docs/gone.md): docs/gone.md does not exist',
    'README.md:3: [bad anchor](docs/perf.md#no-such-heading): docs/perf.md has no heading #no-such-heading',
    'README.md:3: [out](../elsewhere.md): leads outside the repository',
  ]);
  assert.deepEqual(unreachableDocs(dir), ['docs/orphan.md']);

  const r = spawnSync(process.execPath, [resolve(root, 'scripts/check-doc-links.ts'), '--root', dir], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /docs\/orphan\.md: not reachable from README\.md/);
  assert.match(r.stderr, /doc links: 4 problem\(s\)/);
});

test('links are read from prose only: code blocks and code spans are not links', () => {
  const text = [
    'a [real](x.md) link, `[in code](y.md)` and an image ![pic](img/p.png "title")',
    '```ts',
    'const f = fns[0](arg); // [not](z.md)',
    '```',
    '[spaced](<a b.md>) [nested [brackets]](n.md)',
  ].join('\n');
  assert.deepEqual(
    linksOf('p.md', text).map((l) => [l.line, l.target]),
    [
      [1, 'x.md'],
      [1, 'img/p.png'],
      [5, 'a b.md'],
      [5, 'n.md'],
    ],
  );
});

test("headings' anchors are GitHub's", () => {
  assert.equal(slug('Block 0 and earliest'), 'block-0-and-earliest');
  assert.equal(slug('The ABCI++ application (src/cometbft/app.ts)'), 'the-abci-application-srccometbftappts');
  assert.deepEqual(
    [
      ...anchorsOf(
        '# Legacy `chain_*` methods\n## `trace_*` (Parity format)\n## Rollback\n### Rollback\n```\n# not a heading\n```\n<a id="x"></a>',
      ),
    ],
    ['legacy-chain_-methods', 'trace_-parity-format', 'rollback', 'rollback-1', 'x'],
  );
});
