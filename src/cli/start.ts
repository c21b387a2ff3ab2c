/**
 * `chaind start`: load and validate everything, start the node, and stop it cleanly on SIGINT or
 * SIGTERM. Startup errors surface as one line on stderr and a non-zero exit (see main.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenesis } from '../app/genesis.ts';
import { loadConfig } from '../config/load.ts';
import { ChainNode } from '../node/node.ts';
import type { DevChainOptions } from '../node/node-options.ts';
import { createLogger } from '../node/logging.ts';
import { takeEarlySignals } from '../util/early-signals.ts';
import { ChainError } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';

export interface StartOptions {
  home: string;
  /** Raw CLI overrides keyed by schema flag name. */
  flags: Record<string, string>;
  env?: Record<string, string | undefined>;
  /** `chaind dev` (see DevChainOptions). */
  dev?: DevChainOptions;
}

const STOP_TIMEOUT_MS = 15_000;

/**
 * The node of a home as `start` configures it: config files, then environment, then flags; the
 * logger; the genesis. Every command that opens the node's data (`start`, `rollback`) builds it
 * here, so each reads the same stores in the same place.
 */
export function configuredNode(
  o: StartOptions,
  logDestination?: NodeJS.WritableStream,
): { node: ChainNode; logger: Logger } {
  const { config, warnings } = loadConfig({ home: o.home, env: o.env ?? process.env, flags: o.flags });
  const logger = createLogger({
    level: config.config.logLevel,
    format: config.config.logFormat,
    destination: logDestination,
  });
  const cfgLog = logger.child({ module: 'config' });
  for (const w of warnings) cfgLog.warn(w);

  const genesisPath = join(o.home, 'config', 'genesis.json');
  if (!existsSync(genesisPath)) {
    throw new ChainError(
      'GENESIS_MISSING',
      `genesis.json: not found at ${genesisPath}; run \`chaind init\` or restore it`,
    );
  }
  const genesis = parseGenesis(readFileSync(genesisPath, 'utf8'), genesisPath);
  return { node: new ChainNode({ home: o.home, config, genesis, logger, dev: o.dev }), logger };
}

export async function startNode(o: StartOptions): Promise<ChainNode> {
  const { node, logger } = configuredNode(o);

  // Handlers go in before anything starts: without a listener the OS default kills the process, and
  // a signal that arrives mid-startup must still lead to an orderly stop.
  let started = false;
  let stopRequested = false;
  const stop = () =>
    node.stop(STOP_TIMEOUT_MS).then(
      (clean) => process.exit(clean ? 0 : 1),
      () => process.exit(1),
    );
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopRequested) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopRequested = true;
    logger.child({ module: 'node' }).info({ signal }, 'signal received, shutting down');
    if (started) void stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  for (const signal of takeEarlySignals()) onSignal(signal);
  // network mode: a node whose CometBFT is gone stops, exiting non-zero with CometBFT's last error
  node.onFatal = (reason) => {
    if (stopRequested) return;
    stopRequested = true;
    logger.child({ module: 'node' }).error({ reason }, 'consensus engine stopped; shutting down');
    void node.stop(STOP_TIMEOUT_MS).then(
      () => process.exit(1),
      () => process.exit(1),
    );
  };

  await node.start();
  started = true;
  if (stopRequested) void stop();
  reportHeapOnSignal(logger);
  return node;
}

/**
 * A heap size means something only right after a full collection, which only a process started with
 * `node --expose-gc` can ask for: such a node (a soak benchmark, a leak hunt) collects on SIGUSR2
 * and logs one line, 'heap after forced gc', with the heap and RSS. Without the flag SIGUSR2 keeps
 * Node's default (the process ends), as before.
 */
function reportHeapOnSignal(logger: Logger): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return;
  const log = logger.child({ module: 'node' });
  process.on('SIGUSR2', () => {
    gc();
    const m = process.memoryUsage();
    log.info(
      {
        heap_used: m.heapUsed,
        heap_total: m.heapTotal,
        rss: m.rss,
        external: m.external,
        array_buffers: m.arrayBuffers,
      },
      'heap after forced gc',
    );
  });
}
