/**
 * `npm run bench -- <name> [args]` runs bench/<name>.bench.ts. Every benchmark prints one JSON line
 * per figure: {"bench", "figure", "value", "unit", ...labels}.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length));
const name = process.argv[2];
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <name>; available: ${available.join(', ') || '(none yet)'}`);
  process.exit(name ? 1 : 0);
}
await import(join(here, `${name}.bench.ts`));
