/**
 * A validator's life on a running network, end to end: `chaind testnet --validators 3 --rpc-nodes 1`
 * started as real processes; the full node becomes the fourth validator with the operator command
 * (`chaind tx staking create-validator`), signs blocks, takes a delegation from a CosmJS wallet and
 * loses it again, is stopped until slashing jails it, unjails, and leaves the set by unbonding its
 * self-delegation. The chain never stops and every node keeps the same app hash throughout. The
 * genesis is the testnet's with short slashing and unbonding periods, so each step takes seconds.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import { GasPrice, QueryClient, setupStakingExtension, SigningStargateClient } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { stringToPath } from '@cosmjs/crypto';
import { existsSync } from 'node:fs';
import { installedBinaryPath } from '../../src/cometbft/binary.ts';
import { ed25519Address, ed25519FromJson } from '../../src/crypto/node-keys.ts';
import { toAccAddress, toBech32, toValoperAddress } from '../../src/crypto/accounts.ts';
import { BECH32_VALCONS_PREFIX } from '../../src/app/slashing/signing-info.ts';
import { CHAIND, tempHome } from '../helpers/chaind.ts';
import { DEV_MNEMONIC, devAccounts } from '../helpers/dev-chain.ts';
import { cometbftOrSkip, TestNetwork } from '../helpers/network.ts';

const VALIDATORS = ['validator0', 'validator1', 'validator2'];
const JOINER = 'rpc0';
const ALL = [...VALIDATORS, JOINER];
const WINDOW = 10;
const JAIL_SECONDS = 5;
const UNBONDING_SECONDS = 8;

const net: TestNetwork | undefined = existsSync(installedBinaryPath())
  ? await TestNetwork.create({ after }, { validators: 3, rpcNodes: 1 })
  : undefined;

/** The operator: dev account 3 of the standard mnemonic, funded by the testnet genesis. */
const operator = devAccounts[3];
const operatorAcc = toAccAddress(operator.cosmosAddress);
const valoper = toValoperAddress(operator.cosmosAddress);
const delegator = devAccounts[4];
let consAddressHex = '';
let mnemonicFile = '';

if (net) {
  for (const n of net.manifest.nodes) {
    const path = join(n.home, 'config', 'genesis.json');
    const g = JSON.parse(readFileSync(path, 'utf8'));
    g.app_state.staking.params.unbonding_time = `${UNBONDING_SECONDS}s`;
    g.app_state.slashing.params.signed_blocks_window = String(WINDOW);
    g.app_state.slashing.params.min_signed_per_window = '0.500000000000000000';
    g.app_state.slashing.params.downtime_jail_duration = `${JAIL_SECONDS}s`;
    writeFileSync(path, JSON.stringify(g, null, 2));
  }
  const keyPath = join(net.node(JOINER).home, 'config', 'priv_validator_key.json');
  const key = ed25519FromJson(JSON.parse(readFileSync(keyPath, 'utf8')), keyPath);
  consAddressHex = Buffer.from(ed25519Address(key.publicKey)).toString('hex').toUpperCase();
  mnemonicFile = join(tempHome({ after }, 'chaind-operator-'), 'mnemonic');
  writeFileSync(mnemonicFile, DEV_MNEMONIC + '\n', { mode: 0o600 });
  for (const name of ALL) net.start(name);
}

/** Runs the real CLI without blocking this process (the nodes answer it meanwhile). */
function cli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHAIND, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

function operatorTx(args: string[]) {
  return cli([
    'tx',
    ...args,
    '--home',
    net!.node(JOINER).home,
    '--node',
    net!.rpcUrl(JOINER),
    '--from-mnemonic-file',
    mnemonicFile,
    '--hd-path',
    "m/44'/60'/0'/0/3",
  ]);
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  ms = 120_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms${last ? ` (${last})` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** CometBFT's validator set as validator0 reports it: address → voting power. */
async function cometValidators(): Promise<Map<string, string>> {
  const r = await net!.consensus('validator0', '/validators?per_page=100');
  return new Map(r.body.result.validators.map((v: any) => [v.address, v.voting_power]));
}

async function rest(name: string, path: string): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${net!.node(name).ports.rest}${path}`, {
    signal: AbortSignal.timeout(10_000),
  });
  return res.json();
}

async function metric(name: string, family: string, address: string): Promise<number | undefined> {
  const text = await (
    await fetch(`http://127.0.0.1:${net!.node(name).ports.metrics}/metrics`, {
      signal: AbortSignal.timeout(10_000),
    })
  ).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`tendermint_${family}{`) && l.includes(`validator_address="${address}"`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

async function staking() {
  const tm = await Comet38Client.connect(net!.rpcUrl('validator0'));
  after(() => tm.disconnect());
  return QueryClient.withExtensions(tm, setupStakingExtension);
}

/** The chain keeps finalizing: a block above `height` arrives on validator0. */
async function advances(height?: number): Promise<number> {
  const from = height ?? (await net!.height('validator0'));
  return net!.waitHeight('validator0', from + 2, 60_000);
}

test('the full node syncs, then becomes a validator with one command and signs blocks', async (t) => {
  if (!cometbftOrSkip(t)) return;
  await net!.waitHeight(JOINER, 5, 120_000);
  assert.ok(!(await cometValidators()).has(consAddressHex));
  const r = await operatorTx([
    'staking',
    'create-validator',
    '--amount',
    '10000000uchain',
    '--moniker',
    'joiner',
  ]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, new RegExp(valoper));

  const power = await waitFor('CometBFT lists the new validator', async () =>
    (await cometValidators()).get(consAddressHex),
  );
  assert.equal(power, '10');
  // it signs: its vote is in the commits of the blocks after it joined
  const joined = await net!.height('validator0');
  await net!.waitHeight('validator0', joined + 4);
  for (let h = joined + 1; h <= joined + 3; h++) {
    const c = await net!.consensus('validator0', `/commit?height=${h}`);
    const sig = c.body.result.signed_header.commit.signatures.find(
      (s: any) => s.validator_address === consAddressHex,
    );
    assert.equal(sig?.block_id_flag, 2, `its vote in the commit of block ${h}`);
  }
  assert.equal(await metric(JOINER, 'consensus_validator_missed_blocks', consAddressHex), 0);
  assert.equal(await metric(JOINER, 'consensus_validator_status', consAddressHex), 1);
  const v = await rest('validator0', `/cosmos/staking/v1beta1/validators/${valoper}`);
  assert.equal(v.validator.status, 'BOND_STATUS_BONDED');
  assert.equal(v.validator.tokens, '10000000');
  assert.equal(v.validator.description.moniker, 'joiner');
});

test('a CosmJS wallet delegates to it and undelegates; the tokens come back after the unbonding period', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const wallet = await DirectSecp256k1HdWallet.fromMnemonic(DEV_MNEMONIC, {
    prefix: 'chain',
    hdPaths: [stringToPath("m/44'/60'/0'/0/4")],
  });
  const [{ address }] = await wallet.getAccounts();
  assert.equal(address, toAccAddress(delegator.cosmosAddress));
  const client = await SigningStargateClient.connectWithSigner(net!.rpcUrl('validator1'), wallet, {
    gasPrice: GasPrice.fromString('0.001uchain'),
    broadcastPollIntervalMs: 200,
  });
  after(() => client.disconnect());
  const q = await staking();

  const delegated = await client.delegateTokens(
    address,
    valoper,
    { denom: 'uchain', amount: '5000000' },
    'auto',
  );
  assert.equal(delegated.code, 0, delegated.rawLog);
  const d = await q.staking.delegation(address, valoper);
  assert.equal(d.delegationResponse?.balance?.amount, '5000000');
  await waitFor(
    'the power change reaches CometBFT',
    async () => (await cometValidators()).get(consAddressHex) === '15',
  );

  const before = BigInt((await client.getBalance(address, 'uchain')).amount);
  const undelegated = await client.undelegateTokens(
    address,
    valoper,
    { denom: 'uchain', amount: '5000000' },
    'auto',
  );
  assert.equal(undelegated.code, 0, undelegated.rawLog);
  const u = await q.staking.unbondingDelegation(address, valoper);
  assert.equal(u.unbond?.entries[0]?.balance, '5000000');
  await waitFor('the power drops back', async () => (await cometValidators()).get(consAddressHex) === '10');
  await waitFor(
    'the unbonding completes and the tokens return',
    async () => {
      const now = BigInt((await client.getBalance(address, 'uchain')).amount);
      return now > before ? now : undefined;
    },
    (UNBONDING_SECONDS + 60) * 1000,
  );
  const pool = await q.staking.pool();
  assert.equal(pool.pool?.bondedTokens, String(40_000_000));
});

test('stopped past the signed-blocks window it is jailed and leaves the set; the chain goes on; it unjails', async (t) => {
  if (!cometbftOrSkip(t)) return;
  await net!.stop(JOINER);
  const stoppedAt = await net!.height('validator0');
  const jailed = await waitFor('slashing jails the stopped validator', async () => {
    const v = await rest('validator0', `/cosmos/staking/v1beta1/validators/${valoper}`);
    return v.validator?.jailed === true ? v.validator : undefined;
  });
  assert.ok(BigInt(jailed.tokens) < 10_000_000n, `slashed for downtime: ${jailed.tokens}`);
  await waitFor('CometBFT drops it', async () => !(await cometValidators()).has(consAddressHex));
  // the three others hold three quarters of the power: the chain goes on without it
  await advances();
  assert.ok((await net!.height('validator0')) > stoppedAt, 'the chain went on');
  assert.equal(await metric('validator0', 'consensus_validator_status', consAddressHex), 0);
  const { val_signing_info: info } = await rest(
    'validator0',
    `/cosmos/slashing/v1beta1/signing_infos/${toBech32(BECH32_VALCONS_PREFIX, Buffer.from(consAddressHex, 'hex'))}`,
  );
  assert.ok(Date.parse(info.jailed_until) > Date.now() - 60_000, JSON.stringify(info));

  net!.start(JOINER);
  await net!.waitHeight(JOINER, await net!.height('validator0'), 120_000);
  await waitFor(
    'the jail period ends',
    async () => Date.now() > Date.parse(info.jailed_until) + 1000,
    60_000,
  );
  const r = await operatorTx(['slashing', 'unjail']);
  assert.equal(r.code, 0, r.out);
  await waitFor('it is back in the set', async () => (await cometValidators()).has(consAddressHex));
  const v = await rest('validator0', `/cosmos/staking/v1beta1/validators/${valoper}`);
  assert.equal(v.validator.jailed, false);
  assert.equal(v.validator.status, 'BOND_STATUS_BONDED');
});

test('unbonding its whole self-delegation takes it out of the set; every node has one chain', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const v = await rest('validator0', `/cosmos/staking/v1beta1/validators/${valoper}`);
  const r = await operatorTx(['staking', 'unbond', valoper, `${v.validator.tokens}uchain`]);
  assert.equal(r.code, 0, r.out);
  await waitFor('CometBFT drops it', async () => !(await cometValidators()).has(consAddressHex));
  const top = await advances();
  await Promise.all(ALL.map((n) => net!.waitHeight(n, top, 120_000)));
  for (let h = 1; h <= top; h++) {
    const ref = await net!.blockId('validator0', h);
    for (const n of ALL.slice(1)) assert.deepEqual(await net!.blockId(n, h), ref, `${n} at height ${h}`);
  }
  const after = await rest('validator0', `/cosmos/staking/v1beta1/validators/${valoper}`);
  assert.notEqual(after.validator?.status, 'BOND_STATUS_BONDED');
});
