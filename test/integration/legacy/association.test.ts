/**
 * Association through the legacy surface: chain_associate with ethers signatures (an EIP-191
 * prefixed custom_message with v 27/28, and a raw message signed as a digest with v 0/1), both
 * refusals (no balance, already associated), malformed requests, and the address lookups both ways
 * after implicit association by a key's first EVM tx and by its first Cosmos tx.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress, keccak256, parseEther, Signature, toUtf8Bytes, Wallet } from 'ethers';
import { accountFromPrivateKey, toAccAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS } from '../../helpers/node.ts';
import { error, GWEI, result, rpc, sendAndWait, wallets } from '../rpc/rpc-helpers.ts';
import { COSMOS_FEE, cosmjsSigner, eventually, legacyNode } from './legacy-helpers.ts';

const fee = { type: 2, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };

function freshKey(byte: number) {
  const privateKey = Uint8Array.from(Buffer.alloc(32, byte));
  const account = accountFromPrivateKey(privateKey);
  const wallet = new Wallet('0x' + Buffer.from(privateKey).toString('hex'));
  return {
    privateKey,
    wallet,
    evm: wallet.address,
    bech: toAccAddress(account.cosmosAddress),
    /** the EVM address with the Cosmos address's 20 bytes: sending there credits the Cosmos account */
    cosmosCast: getAddress('0x' + Buffer.from(account.cosmosAddress).toString('hex')),
  };
}

/** EIP-191: the client puts the prefixed text in custom_message itself; the node adds nothing. */
async function eip191Request(wallet: Wallet, text: string) {
  const sig = Signature.from(await wallet.signMessage(text));
  return {
    custom_message: `\x19Ethereum Signed Message:\n${Buffer.byteLength(text)}${text}`,
    r: sig.r,
    s: sig.s,
    v: sig.v, // 27 or 28
  };
}

test('chain_associate: EIP-191 and raw-digest signatures, both refusals, malformed requests', async (t) => {
  const { url } = await legacyNode(t);
  const funder = wallets[1];
  let funderNonce = 0;
  const send = (to: string, value: bigint) =>
    sendAndWait(url, funder, { ...fee, nonce: funderNonce++, to, value, gasLimit: 21000 });

  // A key whose addresses hold nothing is refused (nothing would keep fee-less txs from being spam).
  const a = freshKey(0x71);
  const request = await eip191Request(a.wallet, `link ${a.evm} to ${a.bech}`);
  let e = await error(url, 'chain_associate', [request]);
  assert.equal(e.code, -32000);
  assert.equal(
    e.message,
    `neither ${a.evm} nor ${a.bech} holds any balance: an association needs at least 1 wei on one of them`,
  );

  // 1 wei at the EVM address (the cast account) is enough.
  await send(a.evm, 1n);
  e = await error(url, 'chain_getChainAddress', [a.evm]);
  assert.deepEqual(e, {
    code: -32000,
    message: `the EVM address ${a.evm} is not associated with a chain address`,
  });
  const hash = await result(url, 'chain_associate', [request]);
  assert.match(hash, /^0x[0-9a-f]{64}$/);
  await eventually(async () => (await rpc(url, 'chain_getEVMAddress', [a.bech])).result === a.evm);
  assert.equal(await result(url, 'chain_getChainAddress', [a.evm]), a.bech);
  assert.equal(await result(url, 'chain_getEVMAddress', [a.bech]), a.evm);
  // the cast's wei moved to the Cosmos account, which the EVM address now reads
  assert.equal(await result(url, 'eth_getBalance', [a.evm, 'latest']), '0x1');
  // the association tx is a Cosmos tx in a block: it carries no EVM tx
  e = await error(url, 'chain_getEvmTx', [hash.slice(2).toUpperCase()]);
  assert.deepEqual(e, {
    code: -32000,
    message: `Cosmos transaction ${hash.slice(2).toUpperCase()} carries no EVM transaction`,
  });

  // Already associated: refused, whatever message is signed.
  e = await error(url, 'chain_associate', [await eip191Request(a.wallet, 'once more')]);
  assert.equal(e.code, -32000);
  assert.equal(e.message, `the key of ${a.evm} is already associated: ${a.evm} ↔ ${a.bech}`);
  // The very same request again (the same tx, byte for byte, seen before): the same answer.
  assert.deepEqual(await error(url, 'chain_associate', [request]), {
    code: -32000,
    message: `the key of ${a.evm} is already associated: ${a.evm} ↔ ${a.bech}`,
  });

  // A raw message signed as a keccak-256 digest, v as the recovery id 0/1; funds on the Cosmos side.
  const b = freshKey(0x72);
  await send(b.cosmosCast, parseEther('0.001'));
  const message = 'no prefix: the node hashes exactly these bytes';
  const sig = b.wallet.signingKey.sign(keccak256(toUtf8Bytes(message)));
  assert.ok(sig.yParity === 0 || sig.yParity === 1);
  await result(url, 'chain_associate', [{ custom_message: message, r: sig.r, s: sig.s, v: sig.yParity }]);
  await eventually(async () => (await rpc(url, 'chain_getChainAddress', [b.evm])).result === b.bech);
  assert.equal(await result(url, 'chain_getEVMAddress', [b.bech]), b.evm);

  // Malformed requests name what is wrong.
  const c = freshKey(0x73);
  const good = await eip191Request(c.wallet, 'x');
  for (const [bad, reason] of [
    [{ ...good, v: 5 }, 'invalid argument 0: v: want 0, 1, 27 or 28, got 5'],
    [{ ...good, r: 'zz' }, 'invalid argument 0: r: want 0x-prefixed hex of at most 32 bytes, got "zz"'],
    [
      { r: good.r, s: good.s, v: good.v },
      'invalid argument 0: missing field custom_message of {custom_message, r, s, v}',
    ],
    ['0x1234', 'invalid argument 0: want an object {custom_message, r, s, v}, got string'],
  ] as const) {
    assert.deepEqual(await error(url, 'chain_associate', [bad]), { code: -32602, message: reason });
  }
});

test('address lookups both ways after implicit association by a first EVM tx and by a first Cosmos tx; malformed addresses', async (t) => {
  const { url, consensusUrl } = await legacyNode(t);

  // By an EVM tx: the key's first signed Ethereum tx links its addresses.
  const e1 = freshKey(0x74);
  await sendAndWait(url, wallets[2], {
    ...fee,
    nonce: 0,
    to: e1.evm,
    value: parseEther('1'),
    gasLimit: 21000,
  });
  assert.deepEqual(await error(url, 'chain_getChainAddress', [e1.evm]), {
    code: -32000,
    message: `the EVM address ${e1.evm} is not associated with a chain address`,
  });
  assert.deepEqual(await error(url, 'chain_getEVMAddress', [e1.bech]), {
    code: -32000,
    message: `the address ${e1.bech} is not associated with an EVM address`,
  });
  await sendAndWait(url, e1.wallet, { ...fee, nonce: 0, to: wallets[2].address, value: 1n, gasLimit: 21000 });
  assert.equal(await result(url, 'chain_getChainAddress', [e1.evm]), e1.bech);
  assert.equal(await result(url, 'chain_getChainAddress', [e1.evm.toLowerCase()]), e1.bech);
  assert.equal(await result(url, 'chain_getEVMAddress', [e1.bech]), e1.evm);

  // By a Cosmos tx: CosmJS funds the key's bech32 address, then the key signs its own first send.
  const c1 = freshKey(0x75);
  const alice = DEV_ACCOUNTS[0];
  const aliceBech = toAccAddress(alice.cosmosAddress);
  const aliceClient = await cosmjsSigner(t, consensusUrl, alice.privateKey);
  const funded = await aliceClient.sendTokens(
    aliceBech,
    c1.bech,
    [{ denom: 'uchain', amount: '2000000' }],
    COSMOS_FEE,
  );
  assert.equal(funded.code, 0, funded.rawLog);
  assert.deepEqual(await error(url, 'chain_getEVMAddress', [c1.bech]), {
    code: -32000,
    message: `the address ${c1.bech} is not associated with an EVM address`,
  });
  const c1Client = await cosmjsSigner(t, consensusUrl, c1.privateKey);
  const back = await c1Client.sendTokens(
    c1.bech,
    aliceBech,
    [{ denom: 'uchain', amount: '1000' }],
    COSMOS_FEE,
  );
  assert.equal(back.code, 0, back.rawLog);
  assert.equal(await result(url, 'chain_getEVMAddress', [c1.bech]), c1.evm);
  assert.equal(await result(url, 'chain_getChainAddress', [c1.evm]), c1.bech);

  // Malformed input is -32602 with the reason.
  assert.deepEqual(
    await error(url, 'chain_getEVMAddress', ['cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu']),
    {
      code: -32602,
      message:
        'invalid argument 0: invalid bech32 address "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu": address cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu has prefix cosmos, expected chain',
    },
  );
  const e = await error(url, 'chain_getEVMAddress', ['chain1notbech32']);
  assert.equal(e.code, -32602);
  assert.match(e.message, /^invalid argument 0: invalid bech32 address "chain1notbech32": /);
  assert.deepEqual(await error(url, 'chain_getEVMAddress', [42]), {
    code: -32602,
    message: 'invalid argument 0: bech32 address must be a string, got number',
  });
  const bad = await error(url, 'chain_getChainAddress', ['0x1234']);
  assert.equal(bad.code, -32602);
  assert.match(bad.message, /^invalid argument 0: /);
});
