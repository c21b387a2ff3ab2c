/**
 * cosmos.base.tendermint.v1beta1.Service over gRPC: node info, syncing, blocks — checked against
 * the consensus RPC's `/block` of the same node and its genesis facts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { fromBech32 } from '../../../src/crypto/accounts.ts';
import { until } from '../../helpers/node.ts';
import { startGrpcNode } from './helpers.ts';

const SVC = 'cosmos.base.tendermint.v1beta1.Service';
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();

test('gRPC tendermint service', async (t) => {
  const { node, call } = await startGrpcNode(t);
  await until(() => node.modules.chain.latestHeight >= 3);
  // `tcp://host:port`, as CometBFT reports its RPC address.
  const rpcAddress = node.modules.consensusRpc!.url;
  const rpcUrl = rpcAddress.replace(/^tcp:/, 'http:');
  const comet = async (route: string): Promise<any> =>
    ((await (await fetch(`${rpcUrl}${route}`)).json()) as any).result;
  const cometBlock = (h: number) => comet(`/block?height=${h}`);

  await t.test('GetNodeInfo', async () => {
    const { response } = await call(SVC, 'GetNodeInfo', {});
    const cometStatus = await comet('/status');
    const info = response.defaultNodeInfo;
    assert.equal(info.network, 'it-1');
    assert.equal(info.moniker, 'it');
    assert.equal(info.defaultNodeId, cometStatus.node_info.id);
    assert.equal(info.listenAddr, cometStatus.node_info.listen_addr);
    assert.equal(info.version, cometStatus.node_info.version);
    assert.deepEqual(info.protocolVersion, { p2p: 8n, block: 11n, app: 0n });
    assert.deepEqual(info.other, { txIndex: 'on', rpcAddress });
    assert.equal(response.applicationVersion.appName, 'chaind');
  });

  await t.test('GetSyncing: a single validator is never behind', async () => {
    assert.deepEqual((await call(SVC, 'GetSyncing', {})).response, { syncing: false });
  });

  await t.test('GetBlockByHeight(2) is the block the consensus RPC serves at 2', async () => {
    const { response } = await call(SVC, 'GetBlockByHeight', { height: 2n });
    const comet = await cometBlock(2);
    assert.equal(hex(response.blockId.hash), comet.block_id.hash);
    const h = response.block.header;
    assert.equal(h.height, 2n);
    assert.equal(h.chainId, 'it-1');
    assert.equal(hex(h.appHash), comet.block.header.app_hash);
    assert.equal(hex(h.lastBlockId.hash), comet.block.header.last_block_id.hash);
    assert.equal(hex(h.proposerAddress), comet.block.header.proposer_address);
    assert.equal(
      new Date(Number(h.time.seconds) * 1000).toISOString().slice(0, 19),
      comet.block.header.time.slice(0, 19),
    );
    assert.equal(response.block.lastCommit.height, 1n);
    assert.equal(response.block.lastCommit.signatures.length, comet.block.last_commit.signatures.length);
    // sdk_block: the same header with the proposer as a bech32 consensus address.
    const sdk = response.sdkBlock.header;
    assert.match(sdk.proposerAddress, /^chainvalcons1/);
    assert.deepEqual(fromBech32(sdk.proposerAddress, 'chainvalcons'), h.proposerAddress);
    assert.deepEqual({ ...sdk, proposerAddress: h.proposerAddress }, h);
  });

  await t.test('GetLatestBlock is at the latest height', async () => {
    const before = node.modules.chain.latestHeight;
    const { response } = await call(SVC, 'GetLatestBlock', {});
    const height = Number(response.block.header.height);
    assert.ok(
      height >= before && height <= node.modules.chain.latestHeight,
      `latest ${height}, chain ${before}`,
    );
    assert.equal(hex(response.blockId.hash), (await cometBlock(height)).block_id.hash);
  });

  await t.test('GetBlockByHeight past the chain or at 0: INVALID_ARGUMENT', async () => {
    await assert.rejects(call(SVC, 'GetBlockByHeight', { height: 1_000_000n }), (err: any) => {
      assert.equal(err.code, status.INVALID_ARGUMENT);
      assert.match(
        err.details,
        /^requested block height is bigger then the chain length: height 1000000, latest \d+$/,
      );
      return true;
    });
    await assert.rejects(call(SVC, 'GetBlockByHeight', { height: 0n }), (err: any) => {
      assert.equal(err.code, status.INVALID_ARGUMENT);
      assert.match(err.details, /^block at height 0 is not available: the node keeps heights 1 to \d+$/);
      return true;
    });
  });
});
