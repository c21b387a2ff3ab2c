/**
 * The reflection descriptors: the committed set (generated from the SDK's and CometBFT's .proto files)
 * describes every served method with the codecs' message types; services are cut to the served
 * methods and every other byte is served as generated; a method the set lacks is refused, naming the
 * command that regenerates it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GetTxsEventRequest, GetTxsEventResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { FileDescriptorProto } from 'cosmjs-types/google/protobuf/descriptor';
import { rawFields } from '../../../../src/rpc/grpc/descriptor-bytes.ts';
import { committedFiles, fileDescriptors } from '../../../../src/rpc/grpc/descriptors.ts';
import { SERVICES, type ServiceSpec } from '../../../../src/rpc/grpc/services.ts';

const names = (files: Uint8Array[]) => files.map((f) => FileDescriptorProto.decode(f).name);

test('the committed set declares every served method; services are cut to exactly those', () => {
  const files = fileDescriptors().map((f) => FileDescriptorProto.decode(f));
  const served = files.flatMap((f) =>
    f.service.map((s) => [`${f.package}.${s.name}`, s.method.map((m) => m.name).sort()]),
  );
  assert.deepEqual(served.sort(), SERVICES.map((s) => [s.name, s.methods.map((m) => m.name).sort()]).sort());
  // the blocks and node info are described with their fields (once described as empty messages)
  const query = files.find((f) => f.name === 'cosmos/base/tendermint/v1beta1/query.proto')!;
  const fields = (m: string) => query.messageType.find((x) => x.name === m)!.field.map((f) => f.name);
  assert.deepEqual(fields('GetNodeInfoResponse'), ['default_node_info', 'application_version']);
  assert.deepEqual(fields('GetLatestBlockResponse'), ['block_id', 'block', 'sdk_block']);
  assert.ok(names(fileDescriptors()).includes('tendermint/types/block.proto'));
});

test('every byte but the cut services is served as generated', () => {
  const original = committedFiles();
  const served = fileDescriptors();
  assert.deepEqual(names(served), names(original));
  for (let i = 0; i < original.length; i++) {
    const keep = (b: Uint8Array) =>
      rawFields(b)
        .filter((f) => f.number !== 6)
        .map((f) => Buffer.from(f.raw).toString('hex'));
    assert.deepEqual(keep(served[i]), keep(original[i]), names([original[i]])[0]);
  }
  // descriptor.proto's TYPE_DOUBLE field keeps its type (the generated codec would drop it)
  const descriptorProto = served[names(served).indexOf('google/protobuf/descriptor.proto')];
  assert.deepEqual(descriptorProto, original[names(original).indexOf('google/protobuf/descriptor.proto')]);
});

test('a method the proto declares is described as soon as it is served', () => {
  const withEvents: ServiceSpec[] = SERVICES.map((s) =>
    s.name === 'cosmos.tx.v1beta1.Service'
      ? {
          ...s,
          methods: [
            ...s.methods,
            { name: 'GetTxsEvent', request: GetTxsEventRequest, response: GetTxsEventResponse },
          ],
        }
      : s,
  );
  const file = fileDescriptors(withEvents)
    .map((f) => FileDescriptorProto.decode(f))
    .find((f) => f.name === 'cosmos/tx/v1beta1/service.proto')!;
  assert.ok(file.service[0].method.some((m) => m.name === 'GetTxsEvent'));
});

test('a served method the set lacks, or with other message types, is refused at startup', () => {
  const tx = SERVICES.find((s) => s.name === 'cosmos.tx.v1beta1.Service')!;
  const [simulate] = tx.methods;
  const other = (methods: ServiceSpec['methods']) => [{ ...tx, methods }];
  assert.throws(
    () => fileDescriptors(other([{ ...simulate, name: 'Nope' }])),
    /cosmos\.tx\.v1beta1\.Service\/Nope is served, but cosmos\/tx\/v1beta1\/service\.proto in the descriptor set has no such method; run `npm run gen:grpc-descriptors`/,
  );
  assert.throws(
    () => fileDescriptors(other([{ ...simulate, response: GetTxsEventResponse }])),
    /Simulate: the response type is \.cosmos\.tx\.v1beta1\.SimulateResponse in cosmos\/tx\/v1beta1\/service\.proto but the codec encodes \/cosmos\.tx\.v1beta1\.GetTxsEventResponse/,
  );
  assert.throws(
    () => fileDescriptors([{ ...tx, name: 'cosmos.gov.v1.Query', file: 'cosmos/gov/v1/query.proto' }]),
    /cosmos\.gov\.v1\.Query is served, but the descriptor set has no cosmos\/gov\/v1\/query\.proto declaring it/,
  );
});
