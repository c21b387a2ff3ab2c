/**
 * JSON log lines as a log shipper reads them: every line is one JSON object whose keys are unique at
 * every level. JSON.parse keeps the last of two equal keys silently, so the raw text is scanned.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';

/**
 * The keys that occur more than once in one object of `text` (a JSON document), each as
 * `path.key`. A small scanner over the raw text: JSON.parse would hide the repetition.
 */
function duplicateKeys(text: string): string[] {
  const dups: string[] = [];
  // One frame per open object or array: the keys seen so far (objects) and the path to it.
  const stack: { keys: Set<string> | undefined; path: string }[] = [];
  let expectKey = false;
  let lastKey = '';
  // An element of an array shares the array's path; a member of an object adds its key.
  const childPath = (suffix: string) => {
    const parent = stack.at(-1);
    if (!parent) return '';
    return parent.keys
      ? `${parent.path}${lastKey}${suffix}`
      : `${parent.path}${suffix === '.' ? '' : suffix}`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const s = JSON.parse(text.slice(i, j + 1)) as string;
      const top = stack.at(-1);
      if (expectKey && top?.keys) {
        if (top.keys.has(s)) dups.push(`${top.path}${s}`);
        top.keys.add(s);
        lastKey = s;
        expectKey = false;
      }
      i = j;
    } else if (c === '{') {
      stack.push({ keys: new Set(), path: childPath('.') });
      expectKey = true;
    } else if (c === '[') {
      stack.push({ keys: undefined, path: childPath('[].') });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      expectKey = stack.at(-1)?.keys !== undefined;
    }
  }
  return dups;
}

test('the scanner finds repeated keys JSON.parse hides, at any depth, and ignores keys inside strings', () => {
  assert.deepEqual(duplicateKeys('{"module":"sc","module":"memiavl","msg":"x"}'), ['module']);
  assert.deepEqual(duplicateKeys('{"a":{"b":1,"b":2},"c":[{"d":1,"d":2}]}'), ['a.b', 'c[].d']);
  assert.deepEqual(duplicateKeys('{"a":"\\"a\\":1","b":{"a":1},"c":[1,{"a":2}]}'), []);
});

test('chaind start with log_format json writes each key once per line, sub-modules included', async (t) => {
  const home = tempHome(t);
  const init = runChaind(['init', 'n', '--chain-id', 'n-1', '--home', home, '--engine', 'embedded']);
  assert.equal(init.code, 0, init.stderr);
  const node = new ChaindProcess([
    'start',
    '--home',
    home,
    '--log_format',
    'json',
    '--log_level',
    'debug',
    '--consensus.timeout-commit',
    '50ms',
    // a State Commit snapshot every 2 blocks: memiavl logs under the state commit's logger
    '--state-commit.sc-snapshot-interval',
    '2',
  ]);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine((l) => l.includes('memiavl snapshot written'));
  await node.waitForLine((l) => /"height":5\b/.test(l) && l.includes('committed block'));
  assert.equal((await node.stop('SIGTERM')).code, 0);

  assert.ok(node.lines.length > 10, `expected a run's worth of lines, got ${node.lines.length}`);
  for (const line of node.lines) {
    const rec = JSON.parse(line);
    assert.deepEqual(duplicateKeys(line), [], `a key repeats in: ${line}`);
    assert.equal(typeof rec.module, 'string', line);
  }
  // The sub-module rule: a child of a module logger names both, parent first.
  const memiavl = node.lines.map((l) => JSON.parse(l)).find((r) => r.msg === 'memiavl opened');
  assert.equal(memiavl?.module, 'sc.memiavl');
});
