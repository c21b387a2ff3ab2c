/**
 * gRPC as an operator meets it: grpcurl (built by `npm run install:grpcurl`), knowing nothing but what
 * server reflection tells it, against a spawned `chaind dev`. It lists the services, describes each
 * (every served method, every response message with its fields), and calls every method with a
 * sensible request, reading real decoded fields: node info, blocks, balances, accounts, validators,
 * a simulated, broadcast and found-again CosmJS-signed MsgSend, and an Ethereum tx by its Cosmos hash
 * (the Any in each tx resolved through reflection too).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { JsonRpcProvider, Transaction, Wallet } from 'ethers';
import { txHash } from '../../src/codec/index.ts';
import { toAccAddress } from '../../src/crypto/accounts.ts';
import { wrapEthTransaction } from '../../src/execution/tx-wrap.ts';
import { SERVICES } from '../../src/rpc/grpc/services.ts';
import { ChaindProcess, tempHome } from '../helpers/chaind.ts';
import { GRPCURL_VERSION, grpcurlInstalled, grpcurlPath } from '../helpers/grpcurl.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';

const run = promisify(execFile);
const DEV_CHAIN_ID = 'chaind-dev';

test('grpcurl against chaind dev: list, describe and call every served method', async (t) => {
  if (!grpcurlInstalled()) {
    if (process.env.CI)
      throw new Error(`grpcurl is not installed at ${grpcurlPath()}: .ci/run runs npm run install:grpcurl`);
    t.skip(
      `grpcurl v${GRPCURL_VERSION} is not installed at ${grpcurlPath()} (npm run install:grpcurl needs Go)`,
    );
    return;
  }
  const node = new ChaindProcess(['dev', '--home', tempHome(t)]);
  t.after(() => node.stop('SIGKILL'));
  const grpcLine = await node.waitForLine((l) => /^ {2}gRPC +\S+$/.test(l), 60_000);
  const address = grpcLine.trim().split(/\s+/)[1];
  const evmUrl = (await node.waitForLine((l) => /^ {2}EVM JSON-RPC +http/.test(l))).trim().split(/\s+/)[2];
  // the banner comes once block 1 is committed: every query below has a block to answer from

  const grpcurl = async (...args: string[]) => {
    try {
      return (await run(grpcurlPath(), ['-plaintext', ...args], { encoding: 'utf8' })).stdout;
    } catch (err: any) {
      throw new Error(`grpcurl ${args.join(' ')} failed: ${err.stderr || err.message}`);
    }
  };
  /** A unary call by JSON, answered as JSON with the default values written out. */
  const called = new Set<string>();
  const call = async (method: string, body: object = {}) => {
    called.add(method);
    return JSON.parse(await grpcurl('-emit-defaults', '-d', JSON.stringify(body), address, method));
  };

  await t.test('list: the served services', async () => {
    const listed = (await grpcurl(address, 'list')).trim().split('\n');
    assert.deepEqual(listed.sort(), SERVICES.map((s) => s.name).sort());
  });

  await t.test('describe: each service with its methods, each response with its fields', async () => {
    for (const s of SERVICES) {
      const described = await grpcurl(address, 'describe', s.name);
      for (const m of s.methods) {
        assert.match(described, new RegExp(`rpc ${m.name} \\( \\.${m.request.typeUrl.slice(1)} \\)`));
        const response = await grpcurl(address, 'describe', m.response.typeUrl.slice(1));
        assert.match(response, /= 1;/, `${m.response.typeUrl} is described with fields:\n${response}`);
      }
    }
    const block = await grpcurl(address, 'describe', 'tendermint.types.Block');
    assert.match(block, /\.tendermint\.types\.Header header = 1/);
  });

  const alice = DEV_ACCOUNTS[0];
  const aliceAddress = toAccAddress(alice.cosmosAddress);
  const bob = toAccAddress(DEV_ACCOUNTS[1].cosmosAddress);

  await t.test('the tendermint service: node info, syncing, blocks', async () => {
    const info = await call('cosmos.base.tendermint.v1beta1.Service/GetNodeInfo');
    assert.equal(info.defaultNodeInfo.network, DEV_CHAIN_ID);
    assert.equal(info.defaultNodeInfo.moniker, 'dev');
    assert.match(info.defaultNodeInfo.defaultNodeId, /^[0-9a-f]{40}$/);
    assert.equal(info.applicationVersion.name, 'chaind');
    assert.equal((await call('cosmos.base.tendermint.v1beta1.Service/GetSyncing')).syncing, false);
    const latest = await call('cosmos.base.tendermint.v1beta1.Service/GetLatestBlock');
    assert.ok(Number(latest.block.header.height) >= 1);
    assert.equal(latest.block.header.chainId, DEV_CHAIN_ID);
    assert.equal(Buffer.from(latest.blockId.hash, 'base64').length, 32);
    assert.match(latest.sdkBlock.header.proposerAddress, /^chainvalcons1/);
    const first = await call('cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight', { height: '1' });
    assert.equal(first.block.header.height, '1');
    assert.equal(Buffer.from(first.block.header.appHash, 'base64').length, 32);
  });

  await t.test('the module queries: bank, auth, staking', async () => {
    const bank = 'cosmos.bank.v1beta1.Query';
    // a dev account no other step spends from
    const carol = toAccAddress(DEV_ACCOUNTS[5].cosmosAddress);
    const { balance } = await call(`${bank}/Balance`, { address: carol, denom: 'uchain' });
    assert.deepEqual(balance, { denom: 'uchain', amount: '10000000000' });
    const all = await call(`${bank}/AllBalances`, { address: carol });
    assert.deepEqual(all.balances, [{ denom: 'uchain', amount: '10000000000' }]);
    const supply = await call(`${bank}/TotalSupply`);
    const uchain = supply.supply.find((c: { denom: string }) => c.denom === 'uchain');
    assert.ok(BigInt(uchain.amount) >= 10n * 10_000_000_000n, uchain.amount);

    const { account } = await call('cosmos.auth.v1beta1.Query/Account', { address: aliceAddress });
    assert.equal(account['@type'], '/cosmos.auth.v1beta1.BaseAccount');
    assert.equal(account.address, aliceAddress);

    const staking = 'cosmos.staking.v1beta1.Query';
    const { validators } = await call(`${staking}/Validators`, { status: 'BOND_STATUS_BONDED' });
    assert.equal(validators.length, 1);
    assert.match(validators[0].operatorAddress, /^chainvaloper1/);
    assert.equal(validators[0].consensusPubkey['@type'], '/cosmos.crypto.ed25519.PubKey');
    assert.equal(validators[0].status, 'BOND_STATUS_BONDED');
    const one = await call(`${staking}/Validator`, { validatorAddr: validators[0].operatorAddress });
    assert.equal(one.validator.tokens, validators[0].tokens);
  });

  await t.test("the staking and slashing queries over the dev validator's self-delegation", async () => {
    const staking = 'cosmos.staking.v1beta1.Query';
    const { validators } = await call(`${staking}/Validators`, { status: 'BOND_STATUS_BONDED' });
    const validatorAddr = validators[0].operatorAddress;
    const tokens = validators[0].tokens;
    // the dev validator's operator is dev account 0, whose self-delegation bonds its tokens
    const pair = { delegatorAddr: aliceAddress, validatorAddr };
    const { delegationResponse } = await call(`${staking}/Delegation`, pair);
    assert.deepEqual(delegationResponse.balance, { denom: 'uchain', amount: tokens });
    const byValidator = await call(`${staking}/ValidatorDelegations`, { validatorAddr });
    assert.deepEqual(
      byValidator.delegationResponses.map((d: any) => d.delegation.delegatorAddress),
      [aliceAddress],
    );
    const byDelegator = await call(`${staking}/DelegatorDelegations`, { delegatorAddr: aliceAddress });
    assert.equal(byDelegator.delegationResponses[0].balance.amount, tokens);
    const delegatorValidators = await call(`${staking}/DelegatorValidators`, { delegatorAddr: aliceAddress });
    assert.deepEqual(
      delegatorValidators.validators.map((v: any) => v.operatorAddress),
      [validatorAddr],
    );
    const delegatorValidator = await call(`${staking}/DelegatorValidator`, pair);
    assert.equal(delegatorValidator.validator.operatorAddress, validatorAddr);
    assert.deepEqual(
      (await call(`${staking}/ValidatorUnbondingDelegations`, { validatorAddr })).unbondingResponses,
      [],
    );
    assert.deepEqual(
      (await call(`${staking}/DelegatorUnbondingDelegations`, { delegatorAddr: aliceAddress }))
        .unbondingResponses,
      [],
    );
    await assert.rejects(call(`${staking}/UnbondingDelegation`, pair), /NotFound/);
    assert.deepEqual(
      (await call(`${staking}/Redelegations`, { delegatorAddr: aliceAddress })).redelegationResponses,
      [],
    );
    assert.equal((await call(`${staking}/Pool`)).pool.bondedTokens, tokens);
    assert.equal((await call(`${staking}/Params`)).params.bondDenom, 'uchain');

    const slashing = 'cosmos.slashing.v1beta1.Query';
    assert.equal((await call(`${slashing}/Params`)).params.signedBlocksWindow, '100');
    const { info } = await call(`${slashing}/SigningInfos`);
    assert.equal(info.length, 1);
    assert.match(info[0].address, /^chainvalcons1/);
    assert.equal(info[0].tombstoned, false);
    const { valSigningInfo } = await call(`${slashing}/SigningInfo`, { consAddress: info[0].address });
    assert.equal(valSigningInfo.address, info[0].address);
  });

  const tx = 'cosmos.tx.v1beta1.Service';
  /** GetTx, again after each new block while the tx is not found (it waits in the mempool). */
  const getTxWhenIncluded = async (hash: string) => {
    for (;;) {
      const known = new Set(node.lines);
      try {
        return await call(`${tx}/GetTx`, { hash });
      } catch (err) {
        if (!/NotFound/.test(String(err))) throw err;
        await node.waitForLine((l) => l.includes('committed block') && !known.has(l));
      }
    }
  };

  await t.test(
    'the tx service: Simulate, BroadcastTx, GetTx and GetTxsEvent of a CosmJS-signed MsgSend',
    async () => {
      const { account } = await call('cosmos.auth.v1beta1.Query/Account', { address: aliceAddress });
      const wallet = await DirectSecp256k1Wallet.fromKey(alice.privateKey, 'chain');
      const client = await SigningStargateClient.offline(wallet);
      const signed = await client.sign(
        aliceAddress,
        [
          {
            typeUrl: '/cosmos.bank.v1beta1.MsgSend',
            value: {
              fromAddress: aliceAddress,
              toAddress: bob,
              amount: [{ denom: 'uchain', amount: '777' }],
            },
          },
        ],
        { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' },
        'via grpcurl',
        {
          accountNumber: BigInt(account.accountNumber),
          sequence: Number(account.sequence),
          chainId: DEV_CHAIN_ID,
        },
      );
      const txBytes = Buffer.from(TxRaw.encode(signed).finish()).toString('base64');

      const sim = await call(`${tx}/Simulate`, { txBytes });
      assert.ok(BigInt(sim.gasInfo.gasUsed) > 0n);
      const { txResponse } = await call(`${tx}/BroadcastTx`, { txBytes, mode: 'BROADCAST_MODE_SYNC' });
      assert.equal(txResponse.code, 0, txResponse.rawLog);
      const found = await getTxWhenIncluded(txResponse.txhash);
      assert.ok(Number(found.txResponse.height) >= 1);
      assert.equal(found.txResponse.code, 0);
      assert.deepEqual(found.tx.body.messages, [
        {
          '@type': '/cosmos.bank.v1beta1.MsgSend',
          fromAddress: aliceAddress,
          toAddress: bob,
          amount: [{ denom: 'uchain', amount: '777' }],
        },
      ]);
      assert.equal(found.tx.body.memo, 'via grpcurl');
      assert.equal(found.tx.authInfo.signerInfos[0].publicKey['@type'], '/cosmos.crypto.secp256k1.PubKey');

      // the same tx found by its events: sender and recipient, as CosmJS's searchTx asks
      const byEvents = await call(`${tx}/GetTxsEvent`, {
        query: `message.sender='${aliceAddress}' AND transfer.recipient='${bob}'`,
      });
      assert.deepEqual(
        byEvents.txResponses.map((r: { txhash: string }) => r.txhash),
        [txResponse.txhash],
      );
      assert.equal(byEvents.txs[0].body.memo, 'via grpcurl');
      assert.equal(byEvents.total, '1');
    },
  );

  await t.test('GetTx of an Ethereum tx: the chaind message in its Any, decoded', async () => {
    const provider = new JsonRpcProvider(evmUrl, undefined, { staticNetwork: true });
    t.after(() => provider.destroy());
    const sender = new Wallet(`0x${Buffer.from(DEV_ACCOUNTS[2].privateKey).toString('hex')}`, provider);
    const to = `0x${Buffer.from(DEV_ACCOUNTS[3].evmAddress).toString('hex')}`;
    const sent = await sender.sendTransaction({ to, value: 1n });
    await sent.wait();
    const raw = Buffer.from(Transaction.from(sent).serialized.slice(2), 'hex');
    const hash = Buffer.from(txHash(wrapEthTransaction(raw)))
      .toString('hex')
      .toUpperCase();
    const found = await getTxWhenIncluded(hash);
    const [message] = found.tx.body.messages;
    assert.equal(message['@type'], '/chain.evm.v1.MsgEVMTransaction');
    assert.equal(Buffer.from(message.data, 'base64').toString('hex'), raw.toString('hex'));
  });

  await t.test('every served method was called above', () => {
    const served = SERVICES.flatMap((svc) => svc.methods.map((m) => `${svc.name}/${m.name}`));
    assert.deepEqual(
      served.filter((m) => !called.has(m)),
      [],
      'a newly served method needs a grpcurl call in this test',
    );
  });
});
