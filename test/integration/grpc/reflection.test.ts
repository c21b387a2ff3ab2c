/**
 * Server reflection (what `grpcurl list` / `grpcurl describe` use), through a grpc-js client of
 * grpc.reflection.v1 loaded from @grpc/reflection's own .proto; and the service's wiring ([grpc] enable,
 * a taken port).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer, loadSync } from '@grpc/proto-loader';
import { FileDescriptorProto, FileDescriptorSet } from 'cosmjs-types/google/protobuf/descriptor';
import { toAccAddress, toValoperAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS, makeHome, startNode, until } from '../../helpers/node.ts';
import { startGrpcNode } from './helpers.ts';

const require = createRequire(import.meta.url);
const REFLECTION_PROTO = join(
  dirname(require.resolve('@grpc/reflection/package.json')),
  'build/proto/grpc/reflection/v1/reflection.proto',
);

/** The files reflection answers for a symbol: its own first, then every file it imports. */
async function filesOf(address: string, symbol: string): Promise<FileDescriptorProto[]> {
  const answer = await reflect(address, { file_containing_symbol: symbol });
  return answer.file_descriptor_response.file_descriptor_proto.map((b: Buffer) =>
    FileDescriptorProto.decode(b),
  );
}

/** One request on the ServerReflectionInfo stream, its one answer. */
function reflect(address: string, request: object): Promise<any> {
  const pkg = loadPackageDefinition(loadSync(REFLECTION_PROTO, { keepCase: true, oneofs: true })) as any;
  const client = new pkg.grpc.reflection.v1.ServerReflection(address, credentials.createInsecure());
  return new Promise((resolve, reject) => {
    const stream = client.ServerReflectionInfo();
    stream.on('data', (answer: any) => {
      stream.end();
      client.close();
      resolve(answer);
    });
    stream.on('error', reject);
    stream.write(request);
  });
}

test('gRPC server reflection', async (t) => {
  const { address, node } = await startGrpcNode(t);
  await until(() => node.modules.chain.latestHeight >= 1);

  // @grpc/reflection lists the services of the descriptors it was given, not itself.
  await t.test('list: every served service', async () => {
    const answer = await reflect(address, { list_services: '' });
    assert.deepEqual(answer.list_services_response.service.map((s: { name: string }) => s.name).sort(), [
      'cosmos.auth.v1beta1.Query',
      'cosmos.bank.v1beta1.Query',
      'cosmos.base.tendermint.v1beta1.Service',
      'cosmos.slashing.v1beta1.Query',
      'cosmos.staking.v1beta1.Query',
      'cosmos.tx.v1beta1.Service',
    ]);
  });

  await t.test(
    'describe: the SDK file of a service with its methods, and every file it imports',
    async () => {
      const files = await filesOf(address, 'cosmos.bank.v1beta1.Query');
      const [file, ...imports] = files;
      assert.equal(file.name, 'cosmos/bank/v1beta1/query.proto');
      assert.equal(file.package, 'cosmos.bank.v1beta1');
      // the SDK's own imports, those for options included
      for (const dep of [
        'cosmos/base/query/v1beta1/pagination.proto',
        'cosmos/base/v1beta1/coin.proto',
        'gogoproto/gogo.proto',
        'google/api/annotations.proto',
        'cosmos/bank/v1beta1/bank.proto',
      ])
        assert.ok(file.dependency.includes(dep), `${dep} imported`);
      // @grpc/reflection answers a file with the imports its types reference; the others (imported
      // for their options) a client asks for by name, as grpcurl does
      const answered = imports.map((f) => f.name);
      for (const dep of ['cosmos/base/query/v1beta1/pagination.proto', 'cosmos/base/v1beta1/coin.proto'])
        assert.ok(answered.includes(dep), `${dep} answered with the file`);
      for (const dep of file.dependency) {
        const byName = await reflect(address, { file_by_filename: dep });
        assert.ok(!byName.error_response, `${dep}: ${byName.error_response?.error_message}`);
        assert.equal(
          FileDescriptorProto.decode(byName.file_descriptor_response.file_descriptor_proto[0]).name,
          dep,
        );
      }
      // only the served methods: the SDK file declares more
      assert.deepEqual(
        file.service.map((s) => s.name),
        ['Query'],
      );
      assert.deepEqual(
        file.service[0].method.map((m) => [m.name, m.inputType, m.outputType]),
        [
          [
            'Balance',
            '.cosmos.bank.v1beta1.QueryBalanceRequest',
            '.cosmos.bank.v1beta1.QueryBalanceResponse',
          ],
          [
            'AllBalances',
            '.cosmos.bank.v1beta1.QueryAllBalancesRequest',
            '.cosmos.bank.v1beta1.QueryAllBalancesResponse',
          ],
          [
            'TotalSupply',
            '.cosmos.bank.v1beta1.QueryTotalSupplyRequest',
            '.cosmos.bank.v1beta1.QueryTotalSupplyResponse',
          ],
        ],
      );
    },
  );

  await t.test('file_by_filename: the CometBFT block file with its messages and fields', async () => {
    const answer = await reflect(address, { file_by_filename: 'tendermint/types/block.proto' });
    const [file] = answer.file_descriptor_response.file_descriptor_proto.map((b: Buffer) =>
      FileDescriptorProto.decode(b),
    );
    assert.equal(file.name, 'tendermint/types/block.proto');
    const block = file.messageType.find((m: { name: string }) => m.name === 'Block');
    assert.deepEqual(
      block.field.map((f: { name: string; number: number; typeName: string }) => [
        f.name,
        f.number,
        f.typeName,
      ]),
      [
        ['header', 1, '.tendermint.types.Header'],
        ['data', 2, '.tendermint.types.Data'],
        ['evidence', 3, '.tendermint.types.EvidenceList'],
        ['last_commit', 4, '.tendermint.types.Commit'],
      ],
    );
  });

  // What grpcurl does: a client whose codecs come only from the reflected descriptors, calling the
  // node and reading every field, so wrong field numbers or types in the descriptors show here.
  await t.test('a client built from the reflected descriptors alone reads the answers', async () => {
    const clientOf = async (service: string) => {
      const set = FileDescriptorSet.encode({ file: await filesOf(address, service) }).finish();
      const def = loadFileDescriptorSetFromBuffer(Buffer.from(set), {
        longs: String,
        enums: String,
        defaults: true,
      });
      const Ctor = (loadPackageDefinition(def) as any)[service.split('.')[0]];
      const client = service
        .split('.')
        .slice(1)
        .reduce((o: any, k) => o[k], Ctor);
      const c = new client(address, credentials.createInsecure());
      t.after(() => c.close());
      return (method: string, req: object) =>
        new Promise<any>((resolve, reject) =>
          c[method](req, (e: Error | null, r: any) => (e ? reject(e) : resolve(r))),
        );
    };
    const staking = await clientOf('cosmos.staking.v1beta1.Query');
    const { validators, pagination } = await staking('Validators', { status: 'BOND_STATUS_BONDED' });
    assert.equal(validators.length, 1);
    const v = validators[0];
    assert.equal(v.operator_address, toValoperAddress(DEV_ACCOUNTS[0].cosmosAddress));
    assert.equal(v.status, 'BOND_STATUS_BONDED');
    assert.equal(v.consensus_pubkey.type_url, '/cosmos.crypto.ed25519.PubKey');
    assert.equal(v.description.moniker, 'it');
    assert.match(v.commission.commission_rates.rate, /^\d+$/);
    assert.equal(v.unbonding_time.seconds, '0');
    assert.equal(pagination.total, '1');

    const bank = await clientOf('cosmos.bank.v1beta1.Query');
    const all = await bank('AllBalances', { address: toAccAddress(DEV_ACCOUNTS[4].cosmosAddress) });
    assert.deepEqual(all.balances, [{ denom: 'uchain', amount: '10000000000' }]);

    const tendermint = await clientOf('cosmos.base.tendermint.v1beta1.Service');
    const info = await tendermint('GetNodeInfo', {});
    assert.equal(info.default_node_info.network, 'it-1');
    assert.equal(info.default_node_info.moniker, 'it');
    assert.equal(info.application_version.name, 'chaind');
    const latest = await tendermint('GetLatestBlock', {});
    assert.ok(Number(latest.block.header.height) >= 1);
    assert.equal(latest.block.header.chain_id, 'it-1');
    assert.equal(latest.block_id.hash.length, 32);
    assert.match(latest.sdk_block.header.proposer_address, /^chainvalcons1/);
    const first = await tendermint('GetBlockByHeight', { height: '1' });
    assert.equal(first.block.header.height, '1');
    assert.equal(first.block.header.app_hash.length, 32);

    const tx = await clientOf('cosmos.tx.v1beta1.Service');
    const b = await tx('BroadcastTx', { tx_bytes: Buffer.from([0xff, 0x01]), mode: 'BROADCAST_MODE_SYNC' });
    assert.equal(b.tx_response.codespace, 'sdk');
    assert.notEqual(b.tx_response.code, 0);
    assert.match(b.tx_response.txhash, /^[0-9A-F]{64}$/);
  });

  await t.test('a symbol the node does not serve: NOT_FOUND in the reflection answer', async () => {
    const answer = await reflect(address, { file_containing_symbol: 'cosmos.gov.v1beta1.Query' });
    assert.equal(answer.error_response.error_code, 5);
  });
});

test('[grpc] enable = false starts no gRPC server', async (t) => {
  const node = await startNode(makeHome(t), { 'grpc.enable': 'false' });
  t.after(() => node.stop());
  assert.equal(node.modules.grpc, undefined);
});

test('a gRPC address already in use stops startup naming the address and the key', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  await assert.rejects(startNode(makeHome(t), { 'grpc.address': `127.0.0.1:${port}` }), (err: Error) => {
    assert.match(
      err.message,
      new RegExp(`^gRPC cannot listen on 127\\.0\\.0\\.1:${port} \\(\\[grpc\\] address\\): .*EADDRINUSE`),
    );
    return true;
  });
});
