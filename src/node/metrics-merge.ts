/**
 * One /metrics for a network-mode node: chaind's series and its CometBFT child's, in one Prometheus
 * text exposition that passes `promtool check metrics`. A family both export appears once:
 * CometBFT's where it measures consensus itself (height, block interval, txs per block), chaind's
 * otherwise: its application mempool is the one that admits txs, and its
 * `…_consensus_validator_missed_blocks` counts every validator of the signing set from 0, where
 * CometBFT's counts only the node's own validator, from its first miss. CometBFT's counters whose
 * names lack `_total` get it appended (promtool's rule; CometBFT's Go metrics library names counters
 * as declared): `…_mempool_failed_txs` is served as `…_mempool_failed_txs_total`; and its label
 * names in snake_case (`chID` becomes `ch_id`), the other rule promtool enforces (docs/metrics.md).
 */

/** Families taken from CometBFT when both have them (names without the namespace). */
export const CONSENSUS_FAMILIES = [
  'consensus_height',
  'consensus_block_interval_seconds',
  'consensus_num_txs',
];

interface Family {
  name: string;
  /** From the `# TYPE` line; undefined without one. */
  type?: string;
  lines: string[];
}

/** Splits an exposition into families by their `# HELP` / `# TYPE` header. */
function families(text: string): Family[] {
  const out: Family[] = [];
  let current: Family | undefined;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const head = /^# (HELP|TYPE) (\S+)(?: (\S+))?/.exec(line);
    if (head && head[2] !== current?.name) {
      current = { name: head[2], lines: [] };
      out.push(current);
    }
    if (head?.[1] === 'TYPE') current!.type = head[3];
    if (!current) {
      current = { name: line.split(/[{ ]/)[0], lines: [] };
      out.push(current);
    }
    current.lines.push(line);
  }
  return out;
}

/** The family under a new name: its header lines and every sample renamed. */
function renamed(f: Family, name: string): Family {
  const lines = f.lines.map((line) => {
    const head = /^(# (?:HELP|TYPE) )(\S+)(.*)$/.exec(line);
    if (head) return head[2] === f.name ? `${head[1]}${name}${head[3]}` : line;
    return line.startsWith(f.name) && /^[{ ]/.test(line.slice(f.name.length))
      ? name + line.slice(f.name.length)
      : line;
  });
  return { ...f, name, lines };
}

const snakeCase = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** A sample line with its label names in snake_case (`chID="…"` → `ch_id="…"`); values untouched. */
function snakeCaseLabels(line: string): string {
  const open = line.indexOf('{');
  if (line.startsWith('#') || open < 0) return line;
  const close = line.lastIndexOf('}');
  const labels = line
    .slice(open + 1, close)
    .replace(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
      (_m, k: string, v: string) => `${snakeCase(k)}="${v}"`,
    );
  return `${line.slice(0, open + 1)}${labels}${line.slice(close)}`;
}

/** CometBFT's families as the merged exposition carries them (see the module comment). */
function engineFamilies(theirs: string): Family[] {
  return families(theirs).map((f) => {
    const named = f.type === 'counter' && !f.name.endsWith('_total') ? renamed(f, `${f.name}_total`) : f;
    return { ...named, lines: named.lines.map(snakeCaseLabels) };
  });
}

export function mergeExpositions(ours: string, theirs: string, namespace: string): string {
  const preferTheirs = new Set(CONSENSUS_FAMILIES.map((f) => `${namespace}_${f}`));
  const theirFamilies = engineFamilies(theirs);
  const theirNames = new Set(theirFamilies.map((f) => f.name));
  const ourFamilies = families(ours).filter((f) => !(preferTheirs.has(f.name) && theirNames.has(f.name)));
  const ourNames = new Set(ourFamilies.map((f) => f.name));
  const kept = [...ourFamilies, ...theirFamilies.filter((f) => !ourNames.has(f.name))];
  return kept.map((f) => f.lines.join('\n')).join('\n') + '\n';
}
