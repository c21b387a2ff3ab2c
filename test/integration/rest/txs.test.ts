/**
 * REST tx service: a CosmJS-signed MsgSend broadcast through POST /cosmos/tx/v1beta1/txs, read back
 * by hash, its effect on balances at heights before and after it (x-cosmos-block-height), and the
 * refusals of malformed broadcasts and lookups.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS, until } from '../../helpers/node.ts';
import { type Answer, get, post, startRestNode } from './helpers.ts';

const FEE = { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' };
const TXS = '/cosmos/tx/v1beta1/txs';

async function signSend(key: Uint8Array, to: string, amount: string, acct: any, chainId = 'it-1') {
  const wallet = await DirectSecp256k1Wallet.fromKey(key, 'chain');
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.offline(wallet);
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: to, amount: [{ denom: 'uchain', amount }] },
  };
  const signed = await client.sign(address, [msg], FEE, '', {
    accountNumber: BigInt(acct.account_number),
    sequence: Number(acct.sequence),
    chainId,
  });
  return { raw: TxRaw.encode(signed).finish(), signature: signed.signatures[0] };
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const hashOf = (raw: Uint8Array) => createHash('sha256').update(raw).digest('hex').toUpperCase();

async function committed(url: string, hash: string): Promise<Answer> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await get(url, `${TXS}/${hash}`);
    if (r.status === 200) return r;
    assert.equal(r.status, 404, JSON.stringify(r.body));
    if (Date.now() > deadline) throw new Error(`tx ${hash} was not committed in time`);
    await new Promise((res) => setTimeout(res, 30));
  }
}

test('REST tx service', async (t) => {
  const n = await startRestNode(t);
  const alice = DEV_ACCOUNTS[0];
  const aliceBech = toAccAddress(alice.cosmosAddress);
  const to = toAccAddress(Uint8Array.from(Buffer.alloc(20, 0x5a)));
  const balances = `/cosmos/bank/v1beta1/balances/${to}`;

  // A committed height to go back to (header 0 would mean "latest").
  await until(() => n.node.modules.chain.latestHeight >= 1);
  const before = await get(n.url, balances);
  assert.deepEqual(before.body.balances, []);
  const heightBefore = before.headers.get('x-cosmos-block-height')!;

  const acct = (await get(n.url, `/cosmos/auth/v1beta1/accounts/${aliceBech}`)).body.account;
  const send = await signSend(alice.privateKey, to, '5000000', acct);
  const txhash = hashOf(send.raw);

  await t.test('broadcast (sync) answers the CheckTx outcome as a TxResponse', async () => {
    const r = await post(
      n.url,
      TXS,
      JSON.stringify({ tx_bytes: b64(send.raw), mode: 'BROADCAST_MODE_SYNC' }),
    );
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      tx_response: {
        height: '0',
        txhash,
        codespace: '',
        code: 0,
        data: '',
        raw_log: '',
        logs: [],
        info: '',
        gas_wanted: '0',
        gas_used: '0',
        tx: null,
        timestamp: '',
        events: [],
      },
    });
  });

  const got = await committed(n.url, txhash);
  const height = Number(got.body.tx_response.height);

  await t.test('GET by hash: the decoded tx and its result', async () => {
    const tx = {
      body: {
        messages: [
          {
            '@type': '/cosmos.bank.v1beta1.MsgSend',
            from_address: aliceBech,
            to_address: to,
            amount: [{ denom: 'uchain', amount: '5000000' }],
          },
        ],
        memo: '',
        timeout_height: '0',
        extension_options: [],
        non_critical_extension_options: [],
      },
      auth_info: {
        signer_infos: [
          {
            public_key: { '@type': '/cosmos.crypto.secp256k1.PubKey', key: b64(alice.publicKey) },
            mode_info: { single: { mode: 'SIGN_MODE_DIRECT' } },
            sequence: acct.sequence,
          },
        ],
        fee: { amount: [{ denom: 'uchain', amount: '200' }], gas_limit: '200000', payer: '', granter: '' },
        tip: null,
      },
      signatures: [b64(send.signature)],
    };
    assert.deepEqual(got.body.tx, tx);
    const block = await get(n.url, `/cosmos/base/tendermint/v1beta1/blocks/${height}`);
    assert.ok(block.body.block.data.txs.includes(b64(send.raw)), 'the tx is in the block at its height');
    const { events, gas_used, ...rest } = got.body.tx_response;
    assert.deepEqual(rest, {
      height: String(height),
      txhash,
      codespace: '',
      code: 0,
      data: '',
      raw_log: '',
      logs: [],
      info: '',
      gas_wanted: '200000',
      tx: { '@type': '/cosmos.tx.v1beta1.Tx', ...tx },
      timestamp: block.body.block.header.time,
    });
    assert.ok(Number(gas_used) > 0 && Number(gas_used) <= 200000, gas_used);
    // the fee's transfer to the fee collector comes first (the ante handler's), then the send's
    const transfer = events.find(
      (e: any) =>
        e.type === 'transfer' && e.attributes.some((a: any) => a.key === 'recipient' && a.value === to),
    );
    assert.ok(transfer, JSON.stringify(events));
    assert.deepEqual(Object.keys(transfer.attributes[0]), ['key', 'value', 'index']);
  });

  await t.test('balances before and after the transfer, by x-cosmos-block-height', async () => {
    const after = await get(n.url, balances);
    assert.deepEqual(after.body.balances, [{ denom: 'uchain', amount: '5000000' }]);
    const old = await get(n.url, balances, { 'x-cosmos-block-height': heightBefore });
    assert.equal(old.status, 200);
    assert.equal(old.headers.get('x-cosmos-block-height'), heightBefore);
    assert.deepEqual(old.body.balances, []);
    const justBefore = await get(n.url, balances, { 'x-cosmos-block-height': String(height - 1) });
    assert.deepEqual(justBefore.body.balances, []);
    const atTx = await get(n.url, balances, { 'x-cosmos-block-height': String(height) });
    assert.deepEqual(atTx.body.balances, [{ denom: 'uchain', amount: '5000000' }]);
    const sender = (await get(n.url, `/cosmos/auth/v1beta1/accounts/${aliceBech}`)).body.account;
    assert.equal(sender.sequence, String(Number(acct.sequence) + 1));
    assert.deepEqual(sender.pub_key, {
      '@type': '/cosmos.crypto.secp256k1.PubKey',
      key: b64(alice.publicKey),
    });
  });

  await t.test('broadcast (async) returns the hash at once; the tx is then committed', async () => {
    const next = { ...acct, sequence: String(Number(acct.sequence) + 1) };
    const second = await signSend(alice.privateKey, to, '7', next);
    const r = await post(
      n.url,
      TXS,
      JSON.stringify({ tx_bytes: b64(second.raw), mode: 'BROADCAST_MODE_ASYNC' }),
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.tx_response.txhash, hashOf(second.raw));
    assert.equal(r.body.tx_response.code, 0);
    const done = await committed(n.url, hashOf(second.raw));
    assert.equal(done.body.tx_response.code, 0, done.body.tx_response.raw_log);
  });

  await t.test('refused txs come back with their CheckTx code; the node keeps producing', async () => {
    const garbage = await post(
      n.url,
      TXS,
      JSON.stringify({ tx_bytes: b64(Uint8Array.of(1, 2, 3)), mode: 2 }),
    );
    assert.equal(garbage.status, 200);
    assert.notEqual(garbage.body.tx_response.code, 0);
    assert.notEqual(garbage.body.tx_response.raw_log, '');
    const cur = (await get(n.url, `/cosmos/auth/v1beta1/accounts/${aliceBech}`)).body.account;
    const wrongChain = await signSend(alice.privateKey, to, '1', cur, 'other-chain');
    const r = await post(
      n.url,
      TXS,
      JSON.stringify({ tx_bytes: b64(wrongChain.raw), mode: 'BROADCAST_MODE_SYNC' }),
    );
    assert.notEqual(r.body.tx_response.code, 0);
    assert.match(r.body.tx_response.raw_log, /signature|chain/i);
    const h = n.node.modules.chain.latestHeight;
    const deadline = Date.now() + 5000;
    while (n.node.modules.chain.latestHeight <= h && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 20));
    assert.ok(n.node.modules.chain.latestHeight > h, 'blocks are still produced');
  });

  await t.test('malformed broadcasts are 400 code 3 with the reason', async () => {
    const cases: [string, RegExp][] = [
      ['{"tx_bytes":', /^the request body is not valid JSON: /],
      ['[]', /^the request body must be a JSON object/],
      ['{"mode":"BROADCAST_MODE_SYNC"}', /^invalid empty tx$/],
      ['{"tx_bytes":"***","mode":"BROADCAST_MODE_SYNC"}', /^tx_bytes must be a base64 string$/],
      [`{"tx_bytes":"${b64(send.raw)}"}`, /^unsupported broadcast mode "BROADCAST_MODE_UNSPECIFIED"/],
      [
        `{"tx_bytes":"${b64(send.raw)}","mode":"BROADCAST_MODE_BLOCK"}`,
        /^BROADCAST_MODE_BLOCK is not supported/,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await post(n.url, TXS, body);
      assert.equal(r.status, 400, body);
      assert.equal(r.body.code, 3, body);
      assert.match(r.body.message, message, body);
      assert.deepEqual(r.body.details, [], body);
    }
  });

  await t.test('GET of an unknown hash is 404 code 5; a malformed hash 400', async () => {
    const unknown = '00'.repeat(32);
    const r = await get(n.url, `${TXS}/${unknown}`);
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { code: 5, message: `tx not found: ${unknown}`, details: [] });
    const bad = await get(n.url, `${TXS}/xyz`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { code: 3, message: 'tx hash "xyz" is not 32 bytes of hex', details: [] });
    const lower = await get(n.url, `${TXS}/${txhash.toLowerCase()}`);
    assert.equal(lower.status, 200, 'hashes are case-insensitive');
  });
});
