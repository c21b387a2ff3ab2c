/**
 * Loads the node configuration with precedence defaults < files < environment < CLI flags, and
 * validates every value. Invalid values and legacy keys are fatal (ConfigError, one line naming file,
 * key and expected form); unknown keys are returned as warnings for the caller to log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ConfigError, errorMessage } from '../util/errors.ts';
import { FieldError } from './fields.ts';
import { displayName, SCHEMA_KEYS, type SchemaKey } from './keys.ts';
import { type ConfigFileName, FILES, LEGACY_KEYS, type NodeConfig, normalizeKey } from './schema.ts';

export interface LoadOptions {
  /** The node's home; files are read from `<home>/config/`. */
  home: string;
  env?: Record<string, string | undefined>;
  /** CLI overrides keyed by flag name (`log_level`, `state-store.ss-backend`), raw text values. */
  flags?: Record<string, string>;
  /** When false, missing files are treated as empty (used by `init` to render defaults). */
  requireFiles?: boolean;
}

export interface LoadedConfig {
  config: NodeConfig;
  warnings: string[];
}

export function configDir(home: string): string {
  return join(home, 'config');
}

export function defaultConfig(): NodeConfig {
  const cfg = { config: {}, app: {} } as Record<string, Record<string, unknown>>;
  for (const k of SCHEMA_KEYS) setAt(cfg, k.path, structuredClone(k.field.default));
  return cfg as unknown as NodeConfig;
}

export function loadConfig(opts: LoadOptions): LoadedConfig {
  const cfg = defaultConfig();
  const warnings: string[] = [];
  for (const file of Object.keys(FILES) as ConfigFileName[]) {
    const path = join(configDir(opts.home), file);
    if (!existsSync(path)) {
      if (opts.requireFiles === false) continue;
      throw new ConfigError(`${file}: not found at ${path}; run \`chaind init\` first`);
    }
    applyFile(cfg, file, readFileSync(path, 'utf8'), warnings);
  }
  const env = opts.env ?? {};
  for (const k of SCHEMA_KEYS) {
    const raw = env[k.env];
    if (raw !== undefined) assign(cfg, k, raw, true, `environment ${k.env}`);
  }
  for (const [flag, raw] of Object.entries(opts.flags ?? {})) {
    const k = SCHEMA_KEYS.find((s) => normalizeKey(s.flag) === normalizeKey(flag));
    if (!k) throw new ConfigError(`flag --${flag}: no such configuration key`);
    assign(cfg, k, raw, true, `flag --${k.flag}`);
  }
  return { config: cfg, warnings };
}

function applyFile(cfg: NodeConfig, file: ConfigFileName, text: string, warnings: string[]): void {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`${file}: invalid TOML: ${errorMessage(err).split('\n')[0]}`);
  }
  const keysOf = (section: string) => SCHEMA_KEYS.filter((k) => k.file === file && k.section === section);
  const visit = (section: string, table: Record<string, unknown>) => {
    const known = keysOf(section);
    for (const [key, value] of Object.entries(table)) {
      const where = displayName({ section, key });
      if (isTable(value) && section === '') {
        const sectionKnown = SCHEMA_KEYS.some(
          (k) => k.file === file && normalizeKey(k.section) === normalizeKey(key),
        );
        if (sectionKnown) {
          const canonical = SCHEMA_KEYS.find(
            (k) => k.file === file && normalizeKey(k.section) === normalizeKey(key),
          )!;
          visit(canonical.section, value);
        } else {
          checkLegacy(file, key, value);
          warnings.push(`${file}: unknown section [${key}] is ignored`);
        }
        continue;
      }
      const legacy = LEGACY_KEYS[normalizeKey(key)];
      if (legacy) throw legacyError(file, where, key, legacy);
      const k = known.find((s) => normalizeKey(s.key) === normalizeKey(key));
      if (!k) {
        warnings.push(`${file}: unknown key ${where} is ignored`);
        continue;
      }
      assign(cfg, k, value, false, file);
    }
  };
  visit('', doc);
}

/** Legacy keys inside an unknown section are still refused: they signal a config for an old build. */
function checkLegacy(file: string, section: string, table: Record<string, unknown>): void {
  for (const key of Object.keys(table)) {
    const legacy = LEGACY_KEYS[normalizeKey(key)];
    if (legacy) throw legacyError(file, `${section}.${key}`, key, legacy);
  }
}

function legacyError(file: string, where: string, key: string, replacement: string): ConfigError {
  return new ConfigError(
    `${file}: ${where}: this key belongs to older node builds and was replaced by ${replacement}; ` +
      `update the config (remove ${key}, set ${replacement}) before starting`,
  );
}

function assign(cfg: NodeConfig, k: SchemaKey, raw: unknown, fromText: boolean, source: string): void {
  try {
    setAt(cfg as unknown as Record<string, unknown>, k.path, k.field.parse(raw, fromText));
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    const prefix = source === k.file ? k.file : `${source} (${k.file})`;
    throw new ConfigError(`${prefix}: ${displayName(k)}: ${err.message}, expected ${err.expected}`);
  }
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = root;
  for (const name of path.slice(0, -1)) {
    node[name] ??= {};
    node = node[name] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

export function getAt(root: NodeConfig, path: readonly string[]): unknown {
  let node: unknown = root;
  for (const name of path) node = (node as Record<string, unknown>)[name];
  return node;
}
