import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Transaction, TypedDataEncoder, Wallet, getBytes, hexlify } from 'ethers';
import { signPersonalMessage, signTransaction, signTypedData } from '../../../src/execution/signing.ts';

const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const key = getBytes(wallet.privateKey);
const to = getBytes('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');

test('transactions of each type are signed as ethers signs them', async () => {
  const base = { chainId: 713714n, nonce: 7n, gasLimit: 50_000n, value: 5n, data: Uint8Array.of(1, 2, 3) };
  const cases = [
    { ...base, type: 0 as const, to, gasPrice: 3n * 10n ** 9n },
    {
      ...base,
      type: 1 as const,
      to,
      gasPrice: 3n * 10n ** 9n,
      accessList: [{ address: to, storageKeys: [new Uint8Array(32).fill(1)] }],
    },
    { ...base, type: 2 as const, to, maxFeePerGas: 9n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n },
    { ...base, type: 2 as const, maxFeePerGas: 9n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n },
  ];
  for (const c of cases) {
    const raw = hexlify(signTransaction(c, key));
    const expected = await wallet.signTransaction({
      type: c.type,
      chainId: c.chainId,
      nonce: Number(c.nonce),
      gasLimit: c.gasLimit,
      to: 'to' in c && c.to ? hexlify(c.to) : null,
      value: c.value,
      data: hexlify(c.data),
      ...('gasPrice' in c ? { gasPrice: c.gasPrice } : {}),
      ...('maxFeePerGas' in c
        ? { maxFeePerGas: c.maxFeePerGas, maxPriorityFeePerGas: c.maxPriorityFeePerGas }
        : {}),
      ...('accessList' in c && c.accessList
        ? {
            accessList: c.accessList.map((e) => ({
              address: hexlify(e.address),
              storageKeys: e.storageKeys.map((k) => hexlify(k)),
            })),
          }
        : {}),
    });
    assert.equal(raw, expected, `type ${c.type}`);
    assert.equal(Transaction.from(raw).from, wallet.address);
  }
});

test('personal messages and typed data are signed as ethers signs them', async () => {
  const message = Uint8Array.from(Buffer.from('hello chaind'));
  assert.equal(hexlify(signPersonalMessage(message, key)), await wallet.signMessage(message));
  const domain = { name: 'Token', version: '1', chainId: 713714, verifyingContract: hexlify(to) };
  const types = {
    Permit: [
      { name: 'owner', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'memo', type: 'string' },
    ],
  };
  const message712 = { owner: wallet.address, value: 10n ** 18n, memo: 'hi' };
  const typed = {
    types: {
      EIP712Domain: TypedDataEncoder.getPayload(domain, types, message712).types.EIP712Domain,
      ...types,
    },
    primaryType: 'Permit',
    domain,
    message: message712,
  };
  assert.equal(hexlify(signTypedData(typed, key)), await wallet.signTypedData(domain, types, message712));
});
