/** Renders config.toml and app.toml from the schema: every key in the spec's spelling with a comment. */
import { getAt } from './load.ts';
import { SCHEMA_KEYS } from './keys.ts';
import type { ConfigFileName, NodeConfig } from './schema.ts';

const HEADERS: Record<ConfigFileName, string> = {
  'config.toml': '# chaind node configuration: consensus, P2P, mempool, consensus RPC, logging.',
  'app.toml': '# chaind application configuration: state commit, state store, EVM JSON-RPC, REST, gRPC.',
};

export function renderConfigFile(file: ConfigFileName, cfg: NodeConfig): string {
  const lines = [
    HEADERS[file],
    '# Keys accept both spellings (a-b and a_b). Durations are Go-style ("400ms", "5s", "168h").',
    '',
  ];
  let section: string | undefined;
  for (const k of SCHEMA_KEYS.filter((s) => s.file === file)) {
    if (k.section !== section) {
      section = k.section;
      if (section !== '') lines.push(`[${section}]`);
    }
    lines.push(`# ${k.field.doc}`);
    lines.push(`${k.key} = ${k.field.render(getAt(cfg, k.path))}`);
    lines.push('');
  }
  return lines.join('\n');
}
