/**
 * Which CometBFT chaind runs in network mode, and where it finds the binary. One version is pinned:
 * chaind is tested against exactly this release's ABCI++ semantics, config keys, RPC and log lines,
 * so `npm run install:cometbft` builds this version and nothing else.
 */
import { accessSync, constants } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ChainError } from '../util/errors.ts';

/** The newest v0.38.x patch release (the line whose RPC the consensus RPC mirrors). */
export const COMETBFT_VERSION = '0.38.26';
export const COMETBFT_MODULE = 'github.com/cometbft/cometbft';

/** The repository (package) root: two levels above this file. */
const PACKAGE_ROOT = resolve(import.meta.dirname, '../..');

/** Where `npm run install:cometbft` puts the binary: a git-ignored folder named by the version. */
export function installedBinaryPath(root = PACKAGE_ROOT): string {
  return join(root, '.cometbft', `v${COMETBFT_VERSION}`, 'cometbft');
}

/**
 * The binary to run: `[consensus] cometbft-binary` when set (relative to the node's home), else the
 * installed one. Throws one line naming the install command when there is none.
 */
export function resolveCometBinary(configured: string, home: string): string {
  const path =
    configured === ''
      ? installedBinaryPath()
      : isAbsolute(configured)
        ? configured
        : resolve(home, configured);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new CometBinaryMissingError(path, configured !== '');
  }
  return path;
}

export class CometBinaryMissingError extends ChainError {
  constructor(path: string, configured: boolean) {
    super(
      'COMETBFT_MISSING',
      configured
        ? `cometbft binary not found or not executable at ${path} ([consensus] cometbft-binary); fix the path, or clear it and run \`npm run install:cometbft\``
        : `network mode needs CometBFT v${COMETBFT_VERSION}, which is not installed (${path}): run \`npm run install:cometbft\` (needs Go >= 1.22), or use \`chaind dev\` for a local chain without it`,
    );
  }
}
