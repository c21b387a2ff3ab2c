/**
 * A fresh clone runs its tests: no source, test, bench or script file refers to a path outside the
 * repository (the old `../shared` test vectors, `/work/...`), and every repository file they name by
 * a relative path (imports, and the literals joined to `import.meta.dirname`) is committed, not just
 * present in this working tree. Generated, git-ignored folders the setup steps fill (node_modules,
 * .cometbft, .grpcurl) are the only exception.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');
const CODE_DIRS = ['src', 'test', 'bench', 'scripts'];
const GENERATED = ['node_modules', '.cometbft', '.grpcurl'];
const SELF = relative(ROOT, import.meta.filename)
  .split(sep)
  .join('/');

function tracked(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
}

/** Relative paths a file names in string literals: `'../x'`, `"./y"`, and absolute `/work/…` ones. */
function pathLiterals(text: string): string[] {
  return [...text.matchAll(/(['"`])((?:\.\.?\/|\/work\/)[^'"`\s]*)\1/g)].map((m) => m[2]);
}

test('no code file names a path outside the repository, and what it names is committed', (t) => {
  let files: string[];
  try {
    files = tracked();
  } catch (err) {
    t.skip(`not a git checkout (${(err as Error).message.split('\n')[0]})`);
    return;
  }
  const committed = new Set(files);
  const committedDirs = new Set(
    files.flatMap((f) =>
      f
        .split('/')
        .slice(0, -1)
        .map((_, i, a) => a.slice(0, i + 1).join('/')),
    ),
  );
  const code = files.filter((f) => CODE_DIRS.includes(f.split('/')[0]) && /\.(ts|js|mjs)$/.test(f));
  assert.ok(code.length > 100, `${code.length} code files`);
  const problems: string[] = [];
  for (const file of code) {
    // fixtures are data: paths in them are not read by the tests as paths; this file's are examples
    if (file.startsWith('test/fixtures/') || file === SELF) continue;
    for (const literal of pathLiterals(readFileSync(join(ROOT, file), 'utf8'))) {
      if (literal.startsWith('/work/')) {
        problems.push(`${file}: ${literal} (an absolute path of this machine)`);
        continue;
      }
      const target = resolve(ROOT, dirname(file), literal);
      const rel = relative(ROOT, target);
      if (rel === '..' || rel.startsWith(`..${sep}`)) {
        problems.push(`${file}: ${literal} resolves outside the repository (${target})`);
        continue;
      }
      const repoPath = rel.split(sep).join('/');
      if (repoPath === '' || GENERATED.includes(repoPath.split('/')[0]) || !existsSync(target)) continue;
      const ok = statSync(target).isDirectory() ? committedDirs.has(repoPath) : committed.has(repoPath);
      if (!ok) problems.push(`${file}: ${literal} names ${repoPath}, which is not committed`);
    }
  }
  assert.deepEqual(problems, []);
});

test('pathLiterals finds relative and machine paths, not other strings', () => {
  assert.deepEqual(
    pathLiterals(
      `import x from '../a/b.ts'; join(d, "../../outside/vectors"); const u = '/api'; f(\`./c\`); g('/work/elsewhere/x')`,
    ),
    ['../a/b.ts', '../../outside/vectors', './c', '/work/elsewhere/x'],
  );
});
