/** Reading stored txs and deriving the Ethereum roots, checked against ethers and ethereumjs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { encodeReceipt as ejsEncodeReceipt } from '@ethereumjs/vm';
import { Transaction, Wallet } from 'ethers';
import { CodecError } from '../../../../src/rpc/codecs/errors.ts';
import { parseEthTx } from '../../../../src/rpc/codecs/eth-tx.ts';
import { encodeReceipt } from '../../../../src/rpc/codecs/format.ts';
import { address, data } from '../../../../src/rpc/codecs/hex.ts';
import { rlpDecode } from '../../../../src/rpc/codecs/rlp.ts';
import { EMPTY_TRIE_ROOT, orderedTrieRoot, rlpEncode } from '../../../../src/rpc/codecs/trie.ts';
import type { ReceiptView } from '../../../../src/rpc/codecs/views.ts';

const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
const to = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

test('the fields of every tx type read back as ethers signed them', async () => {
  const base = { chainId: 713714n, nonce: 7, gasLimit: 50_000n, to, value: 12345n, data: '0xdeadbeef' };
  const accessList = [{ address: to, storageKeys: ['0x' + '01'.padStart(64, '0')] }];
  const auth = await wallet.authorize({ address: to, nonce: 3, chainId: 713714n });
  const txs = [
    { ...base, type: 0, gasPrice: 5n * 10n ** 9n },
    { ...base, type: 1, gasPrice: 6n, accessList },
    { ...base, type: 2, maxFeePerGas: 100n, maxPriorityFeePerGas: 2n, accessList },
    { ...base, type: 4, maxFeePerGas: 100n, maxPriorityFeePerGas: 2n, authorizationList: [auth] },
    { ...base, type: 2, to: null, maxFeePerGas: 1n, maxPriorityFeePerGas: 0n, value: 0n },
  ];
  for (const req of txs) {
    const signed = Transaction.from(await wallet.signTransaction(req));
    const f = parseEthTx(bytes(signed.serialized));
    assert.equal(f.type, signed.type);
    assert.equal(f.chainId, signed.chainId);
    assert.equal(f.nonce, BigInt(signed.nonce));
    assert.equal(f.gas, signed.gasLimit);
    assert.equal(f.to === null ? null : address(f.to), signed.to?.toLowerCase() ?? null);
    assert.equal(f.value, signed.value);
    assert.equal(data(f.input), signed.data);
    assert.equal(f.r, BigInt(signed.signature!.r));
    assert.equal(f.s, BigInt(signed.signature!.s));
    if (signed.type === 0) {
      assert.equal(f.gasPrice, signed.gasPrice);
      assert.equal(f.v, BigInt(signed.signature!.networkV!));
    } else assert.equal(f.v, BigInt(signed.signature!.yParity));
    if (signed.type === 1) assert.equal(f.gasPrice, signed.gasPrice);
    if (signed.type! >= 2) {
      assert.equal(f.maxFeePerGas, signed.maxFeePerGas);
      assert.equal(f.maxPriorityFeePerGas, signed.maxPriorityFeePerGas);
    }
    if (signed.accessList?.length) {
      assert.deepEqual(
        f.accessList!.map((e) => ({ address: address(e.address), storageKeys: e.storageKeys.map(data) })),
        signed.accessList.map((e) => ({ ...e, address: e.address.toLowerCase() })),
      );
    }
    if (signed.type === 4) {
      const [a] = f.authorizationList!;
      assert.equal(address(a.address), to);
      assert.equal(a.nonce, 3n);
      assert.equal(a.chainId, 713714n);
      assert.equal(a.yParity, BigInt(auth.signature.yParity));
    }
  }
});

test('a pre-EIP-155 legacy tx has no chain id', async () => {
  // v = 27: sign the legacy hash ourselves (ethers always signs with a chain id).
  const unsigned = Transaction.from({ type: 0, nonce: 0, gasLimit: 21000n, gasPrice: 1n, to, value: 1n });
  const sig = wallet.signingKey.sign(unsigned.unsignedHash);
  const raw = RLP.encode([
    new Uint8Array(0),
    1,
    21000,
    bytes(to),
    1,
    new Uint8Array(0),
    sig.v,
    bytes(sig.r),
    bytes(sig.s),
  ]);
  const f = parseEthTx(raw);
  assert.equal(f.chainId, undefined);
  assert.equal(f.v, BigInt(sig.v));
});

test('malformed bytes fail with CodecError', () => {
  assert.throws(() => parseEthTx(new Uint8Array(0)), CodecError);
  assert.throws(() => parseEthTx(Uint8Array.of(3, 0xc0)), /transaction type 3 not supported/);
  assert.throws(() => parseEthTx(Uint8Array.of(0xc1, 0x80)), /has 9 fields, got 1/);
  assert.throws(() => rlpDecode(Uint8Array.of(0x83, 1)), /exceeds available input/);
  assert.throws(() => rlpDecode(Uint8Array.of(0x80, 0x80)), /trailing bytes/);
  assert.throws(() => rlpDecode(Uint8Array.of(0xb8, 0x01, 0x00)), /non-canonical size/);
});

test('RLP encoding matches @ethereumjs/rlp', () => {
  const items = [
    new Uint8Array(0),
    Uint8Array.of(0x7f),
    Uint8Array.of(0x80),
    new Uint8Array(55).fill(1),
    new Uint8Array(56).fill(2),
    new Uint8Array(70_000).fill(3),
    [],
    [Uint8Array.of(1), [Uint8Array.of(2), new Uint8Array(60)]],
  ];
  for (const item of items) assert.deepEqual(rlpEncode(item as never), RLP.encode(item as never));
  assert.deepEqual(rlpEncode(0), RLP.encode(0));
  assert.deepEqual(rlpEncode(1024n), RLP.encode(1024));
});

test('ordered trie roots match @ethereumjs/mpt for 0 to 300 entries', async () => {
  assert.equal(data(EMPTY_TRIE_ROOT), '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
  for (const n of [0, 1, 2, 3, 16, 17, 127, 128, 129, 300]) {
    const values = Array.from({ length: n }, (_, i) => new Uint8Array(1 + ((i * 37) % 90)).fill(i & 255));
    const trie = new MerklePatriciaTrie();
    for (let i = 0; i < n; i++) await trie.put(RLP.encode(i), values[i]);
    assert.equal(data(orderedTrieRoot(values)), data(trie.root()), `${n} entries`);
  }
});

test('receipt consensus encoding matches ethereumjs (legacy and typed, success and failure)', () => {
  const log = {
    address: new Uint8Array(20).fill(9),
    topics: [new Uint8Array(32).fill(1)],
    data: Uint8Array.of(5),
  };
  for (const [type, status] of [
    [0, 1],
    [2, 0],
    [4, 1],
  ] as const) {
    const r: ReceiptView = {
      txHash: new Uint8Array(32),
      txIndex: 0,
      from: new Uint8Array(20),
      to: null,
      contractAddress: null,
      status,
      gasUsed: 21000n,
      cumulativeGasUsed: 42000n,
      effectiveGasPrice: 1n,
      type,
      logs: [{ ...log, logIndex: 0, txIndex: 0, txHash: new Uint8Array(32) }],
      logsBloom: new Uint8Array(256).fill(3),
    };
    const expected = ejsEncodeReceipt(
      {
        status,
        cumulativeBlockGasUsed: 42000n,
        bitvector: r.logsBloom,
        logs: [[log.address, log.topics, log.data]],
      } as never,
      type,
    );
    assert.deepEqual(encodeReceipt(r), expected);
  }
});
