/**
 * `chaind tx staking …`, `chaind tx slashing unjail` and `chaind keys show`: each command parses its
 * flags into a message and hands it to sendTx; the signer comes from operator-key.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { fromBech32, toAccAddress, toValoperAddress } from '../../crypto/accounts.ts';
import { ed25519FromJson } from '../../crypto/node-keys.ts';
import { BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import { ChainError } from '../../util/errors.ts';
import { resolveHome } from '../home.ts';
import { parseCoin, parseGasPrice, parsePositiveInteger, parseRate } from './amounts.ts';
import {
  createValidatorMsg,
  delegateMsg,
  editValidatorMsg,
  redelegateMsg,
  undelegateMsg,
  unjailMsg,
} from './messages.ts';
import { NodeClient } from './node-client.ts';
import { homeDefaults } from './node-settings.ts';
import { DEFAULT_HD_PATH, keyAddresses, type KeySource, loadOperatorKey } from './operator-key.ts';
import { sendTx } from './send.ts';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Account } from '../../crypto/accounts.ts';

const DEFAULT_GAS_ADJUSTMENT = 1.3;
const DEFAULT_TIMEOUT_S = 60;

function keyOptions(cmd: Command): Command {
  return cmd
    .option('--from-key-file <path>', "file holding the operator's secp256k1 private key in hex")
    .option('--from-mnemonic-file <path>', "file holding the operator's BIP-39 mnemonic")
    .option('--hd-path <path>', `HD path of the key in --from-mnemonic-file (default ${DEFAULT_HD_PATH})`);
}

function txOptions(cmd: Command): Command {
  return keyOptions(cmd)
    .option(
      '--home <dir>',
      'node home directory (default ~/.chaind): the defaults of --node and --gas-prices',
    )
    .option('--node <url>', "consensus RPC to send to (default: the home's [rpc] laddr)")
    .option('--gas <n|auto>', 'gas limit, or auto: simulate and multiply by --gas-adjustment', 'auto')
    .option('--gas-adjustment <x>', 'multiplier of the simulated gas', String(DEFAULT_GAS_ADJUSTMENT))
    .option(
      '--gas-prices <price>',
      "uchain per unit of gas (default: the home's minimum-gas-prices, else 0.001uchain)",
    )
    .option('--note <text>', 'memo of the tx')
    .option(
      '--timeout <seconds>',
      'how long to wait for a block to include the tx',
      String(DEFAULT_TIMEOUT_S),
    );
}

interface TxFlags extends KeyFlags {
  home?: string;
  node?: string;
  gas: string;
  gasAdjustment: string;
  gasPrices?: string;
  note?: string;
  timeout: string;
}

interface KeyFlags {
  fromKeyFile?: string;
  fromMnemonicFile?: string;
  hdPath?: string;
}

function keySource(o: KeyFlags): KeySource {
  return { keyFile: o.fromKeyFile, mnemonicFile: o.fromMnemonicFile, hdPath: o.hdPath };
}

function gasOf(text: string): bigint | 'auto' {
  if (text === 'auto') return 'auto';
  if (!/^\d+$/.test(text) || BigInt(text) === 0n)
    throw new ChainError(
      'BAD_ARGUMENT',
      `--gas: expected a positive integer or auto, got ${JSON.stringify(text)}`,
    );
  return BigInt(text);
}

function positiveNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0))
    throw new ChainError('BAD_ARGUMENT', `${flag}: expected a positive number, got ${JSON.stringify(text)}`);
  return n;
}

function valoperArg(text: string, what: string): string {
  try {
    fromBech32(text, BECH32_VALOPER_PREFIX);
  } catch (err) {
    throw new ChainError(
      'BAD_ARGUMENT',
      `${what}: expected a ${BECH32_VALOPER_PREFIX}1… validator operator address, got ${JSON.stringify(text)} (${(err as Error).message})`,
    );
  }
  return text;
}

/** Sends the messages `build` makes for the signer, prints the outcome as one JSON line. */
async function runTx(
  o: TxFlags,
  build: (signer: Account) => Any[],
  extra: (signer: Account) => Record<string, string> = () => ({}),
): Promise<void> {
  const signer = loadOperatorKey(keySource(o));
  const messages = build(signer);
  const defaults = homeDefaults(resolveHome(o.home));
  const sent = await sendTx({
    node: new NodeClient(o.node ?? defaults.nodeUrl),
    signer,
    messages,
    memo: o.note,
    gas: gasOf(o.gas),
    gasAdjustment: positiveNumber(o.gasAdjustment, '--gas-adjustment'),
    gasPrice: parseGasPrice(o.gasPrices ?? defaults.gasPrice, '--gas-prices'),
    timeoutMs: positiveNumber(o.timeout, '--timeout') * 1000,
    progress: (line) => process.stderr.write(line + '\n'),
  });
  process.stdout.write(JSON.stringify({ ...sent, ...extra(signer) }) + '\n');
}

function consensusPubKey(home: string): Uint8Array {
  const path = join(home, 'config', 'priv_validator_key.json');
  try {
    return ed25519FromJson(JSON.parse(readFileSync(path, 'utf8')), path).publicKey;
  } catch (err) {
    throw new ChainError(
      'BAD_ARGUMENT',
      `consensus key ${path}: ${(err as Error).message} (run on the home of the node that will sign blocks, or pass its --home)`,
    );
  }
}

const operator = (signer: Account) => ({ operator_address: toValoperAddress(signer.cosmosAddress) });
const delegator = (signer: Account) => ({ delegator_address: toAccAddress(signer.cosmosAddress) });

export function addTxCommands(program: Command): void {
  const tx = program.command('tx').description('Sign and send a transaction to a node (consensus RPC)');
  const staking = tx.command('staking').description('Validators and delegations');

  txOptions(
    staking
      .command('create-validator')
      .description(
        "Make this node a validator: its consensus key (the home's priv_validator_key.json), self-delegated by the operator",
      )
      .requiredOption('--amount <amount>', 'self-delegation, e.g. 1000000uchain')
      .requiredOption('--moniker <name>', "the validator's name")
      .option('--identity <id>', 'identity signature (e.g. a Keybase key fingerprint)')
      .option('--website <url>', 'website')
      .option('--security-contact <email>', 'security contact')
      .option('--details <text>', 'description')
      .option('--commission-rate <rate>', 'initial commission rate', '0.10')
      .option('--commission-max-rate <rate>', 'highest commission rate it may ever charge', '0.20')
      .option('--commission-max-change-rate <rate>', 'largest change of the rate per day', '0.01')
      .option('--min-self-delegation <n>', 'uchain the operator must keep self-delegated', '1'),
  ).action(async (o) => {
    const home = resolveHome(o.home);
    const amount = parseCoin(o.amount, '--amount');
    const commission = {
      rate: parseRate(o.commissionRate, '--commission-rate'),
      maxRate: parseRate(o.commissionMaxRate, '--commission-max-rate'),
      maxChangeRate: parseRate(o.commissionMaxChangeRate, '--commission-max-change-rate'),
    };
    const minSelfDelegation = parsePositiveInteger(o.minSelfDelegation, '--min-self-delegation');
    const pubKey = consensusPubKey(home);
    await runTx(
      o,
      (signer) => [
        createValidatorMsg({
          description: {
            moniker: o.moniker,
            identity: o.identity,
            website: o.website,
            securityContact: o.securityContact,
            details: o.details,
          },
          commission,
          minSelfDelegation,
          valoper: toValoperAddress(signer.cosmosAddress),
          consensusPubKey: pubKey,
          amount,
        }),
      ],
      operator,
    );
  });

  txOptions(
    staking
      .command('edit-validator')
      .description("Change the operator's validator: description, commission rate, min self-delegation")
      .option('--moniker <name>', "the validator's name")
      .option('--identity <id>', 'identity signature')
      .option('--website <url>', 'website')
      .option('--security-contact <email>', 'security contact')
      .option('--details <text>', 'description')
      .option(
        '--commission-rate <rate>',
        'new commission rate (at most max-change-rate from the current, once a day)',
      )
      .option('--min-self-delegation <n>', 'new min self-delegation in uchain (it may only grow)'),
  ).action(async (o) => {
    const commissionRate =
      o.commissionRate === undefined ? undefined : parseRate(o.commissionRate, '--commission-rate');
    const minSelfDelegation =
      o.minSelfDelegation === undefined
        ? undefined
        : parsePositiveInteger(o.minSelfDelegation, '--min-self-delegation');
    await runTx(
      o,
      (signer) => [
        editValidatorMsg({
          description: {
            moniker: o.moniker,
            identity: o.identity,
            website: o.website,
            securityContact: o.securityContact,
            details: o.details,
          },
          valoper: toValoperAddress(signer.cosmosAddress),
          commissionRate,
          minSelfDelegation,
        }),
      ],
      operator,
    );
  });

  txOptions(
    staking
      .command('delegate')
      .description('Delegate uchain to a validator')
      .argument('<valoper>', 'validator operator address (chainvaloper1…)')
      .argument('<amount>', 'e.g. 1000000uchain'),
  ).action(async (valoper: string, amountText: string, o) => {
    const v = valoperArg(valoper, 'validator');
    const amount = parseCoin(amountText, 'amount');
    await runTx(o, (signer) => [delegateMsg(toAccAddress(signer.cosmosAddress), v, amount)], delegator);
  });

  txOptions(
    staking
      .command('unbond')
      .description('Undelegate uchain from a validator; it returns after the unbonding period')
      .argument('<valoper>', 'validator operator address (chainvaloper1…)')
      .argument('<amount>', 'e.g. 1000000uchain'),
  ).action(async (valoper: string, amountText: string, o) => {
    const v = valoperArg(valoper, 'validator');
    const amount = parseCoin(amountText, 'amount');
    await runTx(o, (signer) => [undelegateMsg(toAccAddress(signer.cosmosAddress), v, amount)], delegator);
  });

  txOptions(
    staking
      .command('redelegate')
      .description('Move a delegation from one validator to another at once')
      .argument('<src-valoper>', 'validator delegated to now')
      .argument('<dst-valoper>', 'validator to delegate to')
      .argument('<amount>', 'e.g. 1000000uchain'),
  ).action(async (src: string, dst: string, amountText: string, o) => {
    const s = valoperArg(src, 'source validator');
    const d = valoperArg(dst, 'destination validator');
    const amount = parseCoin(amountText, 'amount');
    await runTx(o, (signer) => [redelegateMsg(toAccAddress(signer.cosmosAddress), s, d, amount)], delegator);
  });

  const slashing = tx.command('slashing').description('Jailing');
  txOptions(
    slashing
      .command('unjail')
      .description("Bring the operator's jailed validator back (after its jail time)"),
  ).action(async (o) => {
    await runTx(o, (signer) => [unjailMsg(toValoperAddress(signer.cosmosAddress))], operator);
  });
}

export function addKeysCommands(program: Command): void {
  const keys = program.command('keys').description("The operator's key");
  keyOptions(
    keys
      .command('show')
      .description('Print the account address, the validator operator address and the EVM address of a key'),
  ).action((o) => {
    process.stdout.write(JSON.stringify(keyAddresses(loadOperatorKey(keySource(o)))) + '\n');
  });
}
