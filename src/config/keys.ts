/**
 * Flat enumeration of every schema key with its three external names: the file/section/key it has in
 * TOML, its environment variable and its CLI flag.
 */
import type { Field } from './fields.ts';
import { camel, type ConfigFileName, FILES } from './schema.ts';

export interface SchemaKey {
  file: ConfigFileName;
  section: string; // '' = top level
  key: string; // the spec's spelling
  field: Field<unknown>;
  /** `CHAIND_<SECTION>_<KEY>`, upper case, non-alphanumerics as `_`. */
  env: string;
  /** `log_level` for top-level keys, `state-store.ss-backend` for section keys. */
  flag: string;
  /** Where the value sits in NodeConfig. */
  path: [file: 'config' | 'app', ...names: string[]];
}

const envPart = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '_');

function enumerate(): SchemaKey[] {
  const out: SchemaKey[] = [];
  for (const [file, schema] of Object.entries(FILES) as [
    ConfigFileName,
    Record<string, Record<string, Field<unknown>>>,
  ][]) {
    const root = file === 'config.toml' ? 'config' : 'app';
    for (const [section, fields] of Object.entries(schema)) {
      for (const [key, field] of Object.entries(fields)) {
        out.push({
          file,
          section,
          key,
          field,
          env: section === '' ? `CHAIND_${envPart(key)}` : `CHAIND_${envPart(section)}_${envPart(key)}`,
          flag: section === '' ? key : `${section}.${key}`,
          path: section === '' ? [root, camel(key)] : [root, camel(section), camel(key)],
        });
      }
    }
  }
  const seen = new Map<string, SchemaKey>();
  for (const k of out) {
    const clash = seen.get(k.env);
    if (clash) throw new Error(`schema: ${k.flag} and ${clash.flag} share the environment variable ${k.env}`);
    seen.set(k.env, k);
  }
  return out;
}

export const SCHEMA_KEYS: readonly SchemaKey[] = enumerate();

export function displayName(k: Pick<SchemaKey, 'section' | 'key'>): string {
  return k.section === '' ? k.key : `${k.section}.${k.key}`;
}
