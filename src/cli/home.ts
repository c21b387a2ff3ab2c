import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `--home`, else `$CHAIND_HOME`, else `~/.chaind`. */
export function resolveHome(flag: string | undefined): string {
  return resolve(flag ?? process.env.CHAIND_HOME ?? join(homedir(), '.chaind'));
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
