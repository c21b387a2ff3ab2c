/**
 * What a script sees right after `eth_sendRawTransaction` answers on `chaind dev` (on demand: the
 * answer comes once the tx's block is committed): every `pending` read already counts the tx, for
 * several senders at once; and a tx sent twice is refused in the words clients classify.
 *
 * ethers' JsonRpcProvider answers identical requests from its own cache for 250 ms, so a Wallet that
 * sends twice in that time signs the second tx with the first one's nonce, on any node (anvil and
 * Hardhat alike): the node can only refuse it so that ethers reports a used nonce (NONCE_EXPIRED), as
 * geth's and anvil's refusals make it do, and not an error it cannot classify.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonRpcProvider, Transaction, Wallet, isError } from 'ethers';
import { startDev } from '../helpers/dev-banner.ts';
import { result as rpc } from '../helpers/json-rpc.ts';

test('send, then read at once: pending nonce, balance and code count the mined tx, for three senders at once', async (t) => {
  const { banner } = await startDev(t);
  const url = banner.evmUrl;
  const chainId = BigInt(await rpc(url, 'eth_chainId', []));
  const TO = '0x' + '42'.repeat(20);
  const ROUNDS = 30;
  const sender = async (key: string) => {
    const w = new Wallet(key);
    let balance = BigInt(await rpc(url, 'eth_getBalance', [w.address, 'latest']));
    for (let nonce = 0; nonce < ROUNDS; nonce++) {
      const raw = await w.signTransaction({
        type: 2,
        chainId,
        nonce,
        to: TO,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      });
      const hash = await rpc(url, 'eth_sendRawTransaction', [raw]);
      const [pendingNonce, latestNonce, pendingBalance, receipt] = await Promise.all([
        rpc(url, 'eth_getTransactionCount', [w.address, 'pending']),
        rpc(url, 'eth_getTransactionCount', [w.address, 'latest']),
        rpc(url, 'eth_getBalance', [w.address, 'pending']),
        rpc(url, 'eth_getTransactionReceipt', [hash]),
      ]);
      assert.ok(receipt, `${w.address} nonce ${nonce}: the answer came before the receipt`);
      const cost = 1n + BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      balance -= cost;
      assert.equal(Number(pendingNonce), nonce + 1, `${w.address}: pending count after nonce ${nonce}`);
      assert.equal(Number(latestNonce), nonce + 1, `${w.address}: latest count after nonce ${nonce}`);
      assert.equal(BigInt(pendingBalance), balance, `${w.address}: pending balance after nonce ${nonce}`);
    }
  };
  await Promise.all(banner.accounts.slice(1, 4).map((a) => sender(a.key)));
  assert.equal(await rpc(url, 'eth_getCode', [TO, 'pending']), '0x');
});

test('a mined tx sent again is a used nonce to ethers (NONCE_EXPIRED), with geth\'s "nonce too low"', async (t) => {
  const { banner } = await startDev(t);
  const provider = new JsonRpcProvider(banner.evmUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  t.after(() => provider.destroy());
  const wallet = new Wallet(banner.accounts[0].key, provider);
  const sent = await wallet.sendTransaction({ to: banner.accounts[1].evm, value: 1n });
  assert.equal((await sent.wait())!.status, 1);
  const raw = Transaction.from(sent).serialized;
  await assert.rejects(provider.broadcastTransaction(raw), (err: unknown) => {
    assert.ok(isError(err, 'NONCE_EXPIRED'), `ethers classifies it as a used nonce: ${String(err)}`);
    assert.match(String(err), /nonce too low: next nonce 1, tx nonce 0/);
    return true;
  });
});
