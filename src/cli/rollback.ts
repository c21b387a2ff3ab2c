/**
 * `chaind rollback [-n N]`: rewinds a stopped node by N blocks (default 1) and prints the new height
 * and app hash. A running node holds the data lock, so this fails with the lock error instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenesis } from '../app/genesis.ts';
import { loadConfig } from '../config/load.ts';
import { createLogger } from '../node/logging.ts';
import { ChainNode } from '../node/node.ts';
import { toHex } from '../primitives/bytes.ts';
import { ChainError } from '../util/errors.ts';

export async function rollbackHome(
  home: string,
  blocks: number,
): Promise<{ height: number; app_hash: string }> {
  const { config } = loadConfig({ home, env: process.env });
  // Operator output goes to stdout as one JSON line; the node's own logs go to stderr here.
  const logger = createLogger({
    level: config.config.logLevel,
    format: config.config.logFormat,
    destination: process.stderr,
  });
  const genesisPath = join(home, 'config', 'genesis.json');
  if (!existsSync(genesisPath))
    throw new ChainError('GENESIS_MISSING', `genesis.json: not found at ${genesisPath}`);
  const node = new ChainNode({
    home,
    config,
    genesis: parseGenesis(readFileSync(genesisPath, 'utf8'), genesisPath),
    logger,
  });
  const { height, appHash } = await node.rollback(blocks);
  return { height, app_hash: toHex(appHash).toUpperCase() };
}
