/**
 * Protobuf file descriptors for server reflection (`grpcurl list`, `grpcurl describe`). The SDK's
 * `.proto` sources are not shipped with cosmjs-types, so each served service gets a descriptor built
 * from the SERVICES table: its package, its methods with input and output types, and the message
 * types named by the codecs' `typeUrl`s. Messages carry the scalar request fields below (enough to
 * call the simple methods by JSON through reflection); nested message fields (pagination, blocks,
 * txs) are left out, so reflection describes those messages without their fields.
 */
import {
  DescriptorProto,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProto,
} from 'cosmjs-types/google/protobuf/descriptor';
import { SERVICES, type ServiceSpec } from './services.ts';

type Scalar = 'string' | 'bytes' | 'int64' | 'int32' | 'bool';
const TYPE: Record<Scalar, FieldDescriptorProto_Type> = {
  string: FieldDescriptorProto_Type.TYPE_STRING,
  bytes: FieldDescriptorProto_Type.TYPE_BYTES,
  int64: FieldDescriptorProto_Type.TYPE_INT64,
  // BroadcastMode is an enum in the SDK; an int32 has the same wire form and needs no enum descriptor.
  int32: FieldDescriptorProto_Type.TYPE_INT32,
  bool: FieldDescriptorProto_Type.TYPE_BOOL,
};

/** Scalar fields by fully qualified message name: [name, number, type], as the SDK's protos declare them. */
const FIELDS: Record<string, [string, number, Scalar][]> = {
  'cosmos.bank.v1beta1.QueryBalanceRequest': [
    ['address', 1, 'string'],
    ['denom', 2, 'string'],
  ],
  'cosmos.bank.v1beta1.QueryAllBalancesRequest': [
    ['address', 1, 'string'],
    ['resolve_denom', 3, 'bool'],
  ],
  'cosmos.auth.v1beta1.QueryAccountRequest': [['address', 1, 'string']],
  'cosmos.staking.v1beta1.QueryValidatorsRequest': [['status', 1, 'string']],
  'cosmos.staking.v1beta1.QueryValidatorRequest': [['validator_addr', 1, 'string']],
  'cosmos.tx.v1beta1.GetTxRequest': [['hash', 1, 'string']],
  'cosmos.tx.v1beta1.BroadcastTxRequest': [
    ['tx_bytes', 1, 'bytes'],
    ['mode', 2, 'int32'],
  ],
  'cosmos.tx.v1beta1.SimulateRequest': [['tx_bytes', 2, 'bytes']],
  'cosmos.base.tendermint.v1beta1.GetBlockByHeightRequest': [['height', 1, 'int64']],
  'cosmos.base.tendermint.v1beta1.GetSyncingResponse': [['syncing', 1, 'bool']],
};

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

function packageOf(service: ServiceSpec): string {
  return service.name.slice(0, service.name.lastIndexOf('.'));
}

function message(fqn: string): DescriptorProto {
  return DescriptorProto.fromPartial({
    name: fqn.slice(fqn.lastIndexOf('.') + 1),
    field: (FIELDS[fqn] ?? []).map(([name, number, type]) => ({
      name,
      number,
      label: FieldDescriptorProto_Label.LABEL_OPTIONAL,
      type: TYPE[type],
      jsonName: camel(name),
    })),
  });
}

export function fileDescriptor(service: ServiceSpec): FileDescriptorProto {
  const pkg = packageOf(service);
  const names = new Set<string>();
  const method = service.methods.map((m) => {
    const [input, output] = [m.request.typeUrl.slice(1), m.response.typeUrl.slice(1)];
    for (const fqn of [input, output]) {
      if (!fqn.startsWith(`${pkg}.`)) throw new Error(`${fqn} is outside package ${pkg}`);
      names.add(fqn);
    }
    return { name: m.name, inputType: `.${input}`, outputType: `.${output}` };
  });
  return FileDescriptorProto.fromPartial({
    name: service.file,
    package: pkg,
    messageType: [...names].map(message),
    service: [{ name: service.name.slice(pkg.length + 1), method }],
    syntax: 'proto3',
  });
}

/**
 * The package-definition shape `@grpc/reflection`'s ReflectionService reads (proto-loader's
 * `loadSync` output): objects carrying `fileDescriptorProtos`, the encoded files.
 */
export function reflectionPackage(): Record<string, { fileDescriptorProtos: Buffer[] }> {
  return Object.fromEntries(
    SERVICES.map((s) => [
      s.name,
      { fileDescriptorProtos: [Buffer.from(FileDescriptorProto.encode(fileDescriptor(s)).finish())] },
    ]),
  );
}
