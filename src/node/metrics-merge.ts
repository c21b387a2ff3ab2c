/**
 * One /metrics for a network-mode node: chaind's series and its CometBFT child's, in one Prometheus
 * text exposition. A family both export appears once: CometBFT's where it measures consensus itself
 * (height, block interval, txs per block, missed blocks), chaind's otherwise (its application
 * mempool is the one that admits txs).
 */

/** Families taken from CometBFT when both have them (names without the namespace). */
export const CONSENSUS_FAMILIES = [
  'consensus_height',
  'consensus_block_interval_seconds',
  'consensus_num_txs',
  'consensus_validator_missed_blocks',
];

interface Family {
  name: string;
  lines: string[];
}

/** Splits an exposition into families by their `# HELP` / `# TYPE` header. */
function families(text: string): Family[] {
  const out: Family[] = [];
  let current: Family | undefined;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const head = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    if (head && head[1] !== current?.name) {
      current = { name: head[1], lines: [] };
      out.push(current);
    }
    if (!current) {
      current = { name: line.split(/[{ ]/)[0], lines: [] };
      out.push(current);
    }
    current.lines.push(line);
  }
  return out;
}

export function mergeExpositions(ours: string, theirs: string, namespace: string): string {
  const preferTheirs = new Set(CONSENSUS_FAMILIES.map((f) => `${namespace}_${f}`));
  const theirFamilies = families(theirs);
  const theirNames = new Set(theirFamilies.map((f) => f.name));
  const ourFamilies = families(ours).filter((f) => !(preferTheirs.has(f.name) && theirNames.has(f.name)));
  const ourNames = new Set(ourFamilies.map((f) => f.name));
  const kept = [...ourFamilies, ...theirFamilies.filter((f) => !ourNames.has(f.name))];
  return kept.map((f) => f.lines.join('\n')).join('\n') + '\n';
}
