/**
 * The `chaind` command line. Every startup failure becomes one line on stderr and exit code 1; a
 * ChainError prints its own message, anything unexpected also prints its stack at debug level.
 */
import { Command, Option } from 'commander';
import { SCHEMA_KEYS } from '../config/keys.ts';
import { takeEarlySignals } from '../util/early-signals.ts';
import { ChainError, errorMessage } from '../util/errors.ts';
import { runDev } from './dev.ts';
import { packageVersion, resolveHome } from './home.ts';
import { initHome } from './init.ts';
import { rollbackHome } from './rollback.ts';
import { showNodeId } from './show-node-id.ts';
import { deleteSnapshot, exportSnapshot, listSnapshots, restoreSnapshot } from './snapshots.ts';
import { startNode } from './start.ts';
import { createTestnet } from './testnet.ts';
import { addKeysCommands, addTxCommands } from './tx/commands.ts';
import { join, resolve } from 'node:path';

/** Adds one `--<section>.<key> <value>` option per configuration key; returns attribute → flag name. */
function addConfigFlags(cmd: Command): Map<string, string> {
  const byAttribute = new Map<string, string>();
  for (const k of SCHEMA_KEYS) {
    const opt = new Option(`--${k.flag} <value>`, `${k.field.doc} (${k.file})`);
    byAttribute.set(opt.attributeName(), k.flag);
    cmd.addOption(opt);
  }
  return byAttribute;
}

function configFlags(
  opts: Record<string, unknown>,
  byAttribute: Map<string, string>,
): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const [attr, value] of Object.entries(opts)) {
    const flag = byAttribute.get(attr);
    if (flag !== undefined && value !== undefined) flags[flag] = String(value);
  }
  return flags;
}

export function buildProgram(): Command {
  const program = new Command('chaind')
    .description('An EVM-compatible blockchain node with Cosmos-style state')
    .version(packageVersion(), '-v, --version')
    .showHelpAfterError();

  program
    .command('init')
    .description('Create a node home: config.toml, app.toml, genesis.json and keys')
    .argument('<moniker>', 'human-readable name of this node')
    .requiredOption('--chain-id <id>', 'chain ID written to genesis')
    .option('--home <dir>', 'node home directory (default ~/.chaind)')
    .option('--overwrite', 'replace an existing configuration and genesis (keys are kept)')
    .option('--evm-chain-id <n>', 'EVM chain ID (default 713714)', parsePositiveInt)
    .addOption(
      new Option('--state-commitment <kind>', 'how EVM state is committed').choices(['flatkv', 'iavl']),
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'what decides blocks: cometbft (network mode) or embedded (a lone validator)',
      )
        .choices(['cometbft', 'embedded'])
        .default('cometbft'),
    )
    .action((moniker: string, o) => {
      const result = initHome({
        home: resolveHome(o.home),
        moniker,
        chainId: o.chainId,
        evmChainId: o.evmChainId,
        overwrite: o.overwrite,
        stateCommitment: o.stateCommitment,
        configure: (cfg) => {
          cfg.config.consensus.engine = o.engine;
        },
      });
      process.stdout.write(JSON.stringify(result) + '\n');
    });

  const start = program
    .command('start')
    .description('Run the node')
    .option('--home <dir>', 'node home directory (default ~/.chaind)');
  const startFlags = addConfigFlags(start);
  start.action(async (o) => {
    await startNode({ home: resolveHome(o.home), flags: configFlags(o, startFlags) });
  });

  const dev = program
    .command('dev')
    .description('Start a throw-away local chain with ten prefunded dev accounts')
    .option('--home <dir>', 'use (and keep) this home instead of a temporary one')
    .option(
      '--block-time <duration>',
      'a block every interval, empty or not (e.g. 1s); default: a block as soon as transactions wait',
    )
    .addOption(
      new Option('--state-commitment <kind>', 'how EVM state is committed').choices(['flatkv', 'iavl']),
    )
    .option(
      '--load-state <file>',
      "set the accounts of a state dump (anvil's JSON) once the chain has started",
    )
    .option('--dump-state <file>', "write the chain's state (anvil's JSON) to this file when it stops")
    .option(
      '--fork-url <url>',
      "start on another chain's EVM state, read over JSON-RPC from this URL on first use (a new home only; a kept forked home remembers it)",
    )
    .option(
      '--fork-block-number <n>',
      'the block of --fork-url whose state is forked (default: its latest)',
      parseNonNegativeInt,
    );
  const devFlags = addConfigFlags(dev);
  dev.action(async (o) => {
    await runDev({
      home: o.home === undefined ? undefined : resolveHome(o.home),
      stateCommitment: o.stateCommitment,
      blockTime: o.blockTime,
      loadState: o.loadState,
      dumpState: o.dumpState === undefined ? undefined : resolve(o.dumpState),
      forkUrl: o.forkUrl,
      forkBlockNumber: o.forkBlockNumber,
      flags: configFlags(o, devFlags),
    });
  });

  const rollback = program
    .command('rollback')
    .description(
      'Rewind a stopped node by N blocks (state commit, state store, block store); takes the configuration flags of start',
    )
    .option('--home <dir>', 'node home directory (default ~/.chaind)')
    .option('-n, --blocks <n>', 'number of blocks to roll back', parseNonNegativeInt, 1);
  const rollbackFlags = addConfigFlags(rollback);
  rollback.action(async (o) => {
    const result = await rollbackHome(
      { home: resolveHome(o.home), flags: configFlags(o, rollbackFlags) },
      o.blocks,
    );
    process.stdout.write(JSON.stringify(result) + '\n');
  });

  program
    .command('testnet')
    .description(
      'Write the homes of a local network on 127.0.0.1: validators in one genesis, RPC nodes, peers filled in',
    )
    .requiredOption('--validators <n>', 'bonded validators', parsePositiveInt)
    .option('--rpc-nodes <n>', 'RPC nodes (full nodes outside the validator set)', parseNonNegativeInt, 0)
    .requiredOption('--output <dir>', 'where the node homes and testnet.json go')
    .option('--chain-id <id>', 'chain ID (default chaind-testnet)')
    .option(
      '--base-port <port>',
      'node i listens on base + 10 i … base + 10 i + 6 (default 26600)',
      parsePositiveInt,
    )
    .option('--evm-chain-id <n>', 'EVM chain ID (default 713714)', parsePositiveInt)
    .action((o) => {
      const manifest = createTestnet({
        validators: o.validators,
        rpcNodes: o.rpcNodes,
        output: o.output,
        chainId: o.chainId,
        basePort: o.basePort,
        evmChainId: o.evmChainId,
      });
      const lines = [
        `wrote ${manifest.nodes.length} node homes of chain ${manifest.chain_id} and ${join(resolve(o.output), 'testnet.json')}`,
        'start each node (one process per node):',
        ...manifest.nodes.map(
          (n) =>
            `  chaind start --home ${n.home}    # ${n.role}, EVM RPC http://127.0.0.1:${n.ports.evm_http}`,
        ),
      ];
      process.stdout.write(lines.join('\n') + '\n');
    });

  program
    .command('show-node-id')
    .description("Print this node's ID (derived from config/node_key.json)")
    .option('--home <dir>', 'node home directory (default ~/.chaind)')
    .action((o) => {
      process.stdout.write(showNodeId(resolveHome(o.home)) + '\n');
    });

  const snapshots = program
    .command('snapshots')
    .description("This node's state-sync snapshots (data/snapshots); each command may run beside the node");
  snapshots
    .command('list')
    .description('List the snapshots, newest first')
    .option('--home <dir>', 'node home directory (default ~/.chaind)')
    .action((o) => {
      process.stdout.write(listSnapshots(resolveHome(o.home)));
    });
  snapshots
    .command('export')
    .description('Write one stored snapshot (metadata and chunks, each checked) into one archive file')
    .requiredOption('--height <h>', 'height of the snapshot', parsePositiveInt)
    .requiredOption('--output <file>', 'archive file to write')
    .option('--home <dir>', 'node home directory (default ~/.chaind)')
    .option('--force', 'replace an existing output file')
    .action(async (o) => {
      process.stdout.write(await exportSnapshot(resolveHome(o.home), o.height, o.output, o.force === true));
    });
  snapshots
    .command('restore')
    .description(
      'Load an exported archive into data/snapshots (every chunk checked), from where the node offers it to peers',
    )
    .argument('<file>', 'archive written by chaind snapshots export')
    .option('--home <dir>', 'node home directory (default ~/.chaind)')
    .option('--force', 'replace an existing snapshot of the same height')
    .action(async (file: string, o) => {
      process.stdout.write(await restoreSnapshot(resolveHome(o.home), file, o.force === true));
    });
  snapshots
    .command('delete')
    .description('Remove one snapshot')
    .requiredOption('--height <h>', 'height of the snapshot', parsePositiveInt)
    .option('--home <dir>', 'node home directory (default ~/.chaind)')
    .action((o) => {
      process.stdout.write(deleteSnapshot(resolveHome(o.home), o.height));
    });

  addTxCommands(program);
  addKeysCommands(program);

  program
    .command('version')
    .description('Print the version')
    .action(() => {
      process.stdout.write(packageVersion() + '\n');
    });

  return program;
}

function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new ChainError('BAD_ARGUMENT', `expected a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return n;
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n === 0) {
    throw new ChainError('BAD_ARGUMENT', `expected a positive integer, got ${JSON.stringify(value)}`);
  }
  return n;
}

export async function main(argv: string[]): Promise<void> {
  try {
    const program = buildProgram();
    // Commands other than start/dev are short: a signal that arrived while loading ends them now.
    program.hook('preAction', (_cmd, action) => {
      if (action.name() === 'start' || action.name() === 'dev') return;
      const early = takeEarlySignals();
      if (early.length > 0) process.exit(130);
    });
    await program.parseAsync(argv);
  } catch (err) {
    const line = err instanceof ChainError ? err.message : `unexpected error: ${errorMessage(err)}`;
    process.stderr.write(`error: ${line}\n`);
    if (!(err instanceof ChainError) && process.env.CHAIND_DEBUG)
      process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  }
}
