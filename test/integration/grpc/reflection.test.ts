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
import { loadSync } from '@grpc/proto-loader';
import { FileDescriptorProto } from 'cosmjs-types/google/protobuf/descriptor';
import { operationalHandles } from '../../../src/node/operational-services.ts';
import { makeHome, startNode } from '../../helpers/node.ts';
import { startGrpcNode } from './helpers.ts';

const require = createRequire(import.meta.url);
const REFLECTION_PROTO = join(
  dirname(require.resolve('@grpc/reflection/package.json')),
  'build/proto/grpc/reflection/v1/reflection.proto',
);

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
  const { address } = await startGrpcNode(t);

  // @grpc/reflection lists the services of the descriptors it was given, not itself.
  await t.test('list: every served service', async () => {
    const answer = await reflect(address, { list_services: '' });
    assert.deepEqual(answer.list_services_response.service.map((s: { name: string }) => s.name).sort(), [
      'cosmos.auth.v1beta1.Query',
      'cosmos.bank.v1beta1.Query',
      'cosmos.base.tendermint.v1beta1.Service',
      'cosmos.staking.v1beta1.Query',
      'cosmos.tx.v1beta1.Service',
    ]);
  });

  await t.test('describe: the file of a service, with its methods and their message types', async () => {
    const answer = await reflect(address, { file_containing_symbol: 'cosmos.bank.v1beta1.Query' });
    const files: FileDescriptorProto[] = answer.file_descriptor_response.file_descriptor_proto.map(
      (b: Buffer) => FileDescriptorProto.decode(b),
    );
    assert.equal(files.length, 1);
    const [file] = files;
    assert.equal(file.name, 'cosmos/bank/v1beta1/query.proto');
    assert.equal(file.package, 'cosmos.bank.v1beta1');
    assert.deepEqual(
      file.service[0].method.map((m) => [m.name, m.inputType, m.outputType]),
      [
        ['Balance', '.cosmos.bank.v1beta1.QueryBalanceRequest', '.cosmos.bank.v1beta1.QueryBalanceResponse'],
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
    const balanceRequest = file.messageType.find((m) => m.name === 'QueryBalanceRequest');
    assert.deepEqual(
      balanceRequest?.field.map((f) => [f.name, f.number]),
      [
        ['address', 1],
        ['denom', 2],
      ],
    );
  });

  await t.test('a symbol the node does not serve: NOT_FOUND in the reflection answer', async () => {
    const answer = await reflect(address, { file_containing_symbol: 'cosmos.gov.v1beta1.Query' });
    assert.equal(answer.error_response.error_code, 5);
  });
});

test('[grpc] enable = false starts no gRPC server', async (t) => {
  const node = await startNode(makeHome(t), { 'grpc.enable': 'false' });
  t.after(() => node.stop());
  assert.equal(operationalHandles(node)?.grpc, undefined);
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
