/**
 * Enforces the layer rules of DESIGN §3: a folder under src/ imports only from its own folder and from
 * folders of a lower layer; `rpc/` never imports storage engines; only `execution/` imports
 * @ethereumjs. Exits 1 listing every violation.
 *
 * Usage: node scripts/check-layers.ts [--root <dir containing src/>]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Lowest first. Folders on one line are peers: neither may import the other. */
const LAYERS: string[][] = [
  ['primitives'],
  ['util'],
  ['crypto'],
  ['codec'],
  ['storage/kv'],
  ['storage/wal'],
  ['storage/ss', 'storage/sc', 'storage/blocks'],
  ['state'],
  ['app'],
  ['execution'],
  ['mempool'],
  ['chain'],
  ['producer'],
  ['rpc/codecs'],
  ['rpc/server'],
  ['rpc/evm', 'rpc/consensus', 'rpc/rest', 'rpc/grpc'],
  // The deprecated chain_/chain2_ views are built on the eth_ ones (resolver, filters, formatters).
  ['rpc/legacy'],
  ['config'],
  ['node'],
  ['cli'],
  ['bin'],
];

/** Extra prohibitions on top of the ordering. */
const FORBIDDEN: { from: string; to: RegExp; why: string }[] = [
  {
    from: 'rpc',
    to: /^src\/storage\//,
    why: 'rpc/ receives narrow read interfaces from node/, never storage',
  },
];
const PACKAGE_OWNERS: { pkg: RegExp; owner: string }[] = [{ pkg: /^@ethereumjs\//, owner: 'execution' }];

const rankOf = new Map<string, number>();
LAYERS.forEach((group, rank) => group.forEach((folder) => rankOf.set(folder, rank)));

/** The layer folder a file under src/ belongs to: the longest registered prefix. */
export function layerOf(srcRelative: string): string | undefined {
  const parts = srcRelative.split('/');
  for (let n = parts.length - 1; n > 0; n--) {
    const candidate = parts.slice(0, n).join('/');
    if (rankOf.has(candidate)) return candidate;
  }
  return undefined;
}

const IMPORT_RE =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

export function checkLayers(root: string): string[] {
  const src = join(root, 'src');
  const problems: string[] = [];
  for (const file of walk(src)) {
    const rel = relative(src, file).split(sep).join('/');
    const from = layerOf(rel);
    if (!from) {
      problems.push(`src/${rel}: not inside a registered layer folder (see scripts/check-layers.ts)`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith('.')) {
        const target = relative(src, resolve(dirname(file), spec))
          .split(sep)
          .join('/');
        if (target.startsWith('..')) {
          problems.push(`src/${rel}: imports ${spec}, which is outside src/`);
          continue;
        }
        const to = layerOf(target);
        if (!to || to === from) continue;
        const forbidden = FORBIDDEN.find((f) => from.startsWith(f.from) && f.to.test(`src/${target}`));
        if (forbidden) problems.push(`src/${rel}: imports ${spec} — ${forbidden.why}`);
        else if (rankOf.get(to)! >= rankOf.get(from)!) {
          problems.push(
            `src/${rel}: layer ${from}/ must not import ${to}/ (${spec}); dependencies point down`,
          );
        }
      } else {
        const owner = PACKAGE_OWNERS.find((o) => o.pkg.test(spec));
        if (owner && !from.startsWith(owner.owner)) {
          problems.push(`src/${rel}: imports ${spec}; only ${owner.owner}/ may import it`);
        }
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const i = process.argv.indexOf('--root');
  const root = i > 0 ? resolve(process.argv[i + 1]) : process.cwd();
  const problems = checkLayers(root);
  if (problems.length > 0) {
    for (const p of problems) console.error(p);
    console.error(`layer check: ${problems.length} violation(s)`);
    process.exit(1);
  }
}
