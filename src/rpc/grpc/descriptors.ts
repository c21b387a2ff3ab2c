/**
 * Protobuf file descriptors for server reflection (`grpcurl list`, `describe`, and calls by JSON).
 * They are the real `.proto` files of the Cosmos SDK, CometBFT and their imports, compiled into the
 * committed FileDescriptorSet `descriptor-set.binpb` by `npm run gen:grpc-descriptors`
 * (scripts/gen-grpc-descriptors.ts; docs/adr/0022-grpc-reflection-from-real-protos.md). Each
 * service is cut down to the methods SERVICES serves, so reflection describes exactly what answers,
 * and a served method the set does not declare with the same message types is refused at startup.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  FileDescriptorProto,
  MethodDescriptorProto,
  ServiceDescriptorProto,
} from 'cosmjs-types/google/protobuf/descriptor';
import { concatBytes } from '../../primitives/bytes.ts';
import { lengthDelimitedField, rawFields } from './descriptor-bytes.ts';
import { type ServiceSpec, SERVICES } from './services.ts';

export const DESCRIPTOR_SET_PATH = fileURLToPath(new URL('./descriptor-set.binpb', import.meta.url));

/**
 * Files compiled into the set besides those declaring SERVICES: the messages the node packs into an
 * `Any` in its answers, which a reflection client must resolve to print them.
 */
export const ANY_TYPE_FILES = [
  'cosmos/auth/v1beta1/auth.proto', // BaseAccount (auth Account)
  'cosmos/crypto/secp256k1/keys.proto', // account and tx signer public keys
  'cosmos/crypto/ed25519/keys.proto', // validator consensus public keys
  'cosmos/bank/v1beta1/tx.proto', // MsgSend (GetTx)
  'cosmos/staking/v1beta1/tx.proto', // the staking messages (GetTx)
  'cosmos/slashing/v1beta1/tx.proto', // MsgUnjail (GetTx)
  'chain/evm/v1/tx.proto', // chaind's Ethereum tx wrapper and association message (GetTx)
];

const REGENERATE = 'run `npm run gen:grpc-descriptors`';

/** Field numbers in descriptor.proto. */
const SET_FILE = 1; // FileDescriptorSet.file
const FILE_SERVICE = 6; // FileDescriptorProto.service
const SERVICE_METHOD = 2; // ServiceDescriptorProto.method

/** The encoded files of the committed set, in its order (every file after its imports). */
export function committedFiles(): Uint8Array[] {
  return rawFields(readFileSync(DESCRIPTOR_SET_PATH))
    .filter((f) => f.number === SET_FILE)
    .map((f) => f.payload!);
}

/** Throws unless `file` declares every method of `spec` with the codecs' message types. */
function checkDeclared(spec: ServiceSpec, file: FileDescriptorProto, service: ServiceDescriptorProto) {
  const name = `${file.package}.${service.name}`;
  if (spec.file !== file.name)
    throw new Error(`${name} is declared in ${file.name}, but SERVICES says ${spec.file}`);
  for (const m of spec.methods) {
    const declared = service.method.find((d) => d.name === m.name);
    if (!declared)
      throw new Error(
        `${name}/${m.name} is served, but ${file.name} in the descriptor set has no such method; ${REGENERATE}`,
      );
    for (const [what, got, codec] of [
      ['request', declared.inputType, m.request],
      ['response', declared.outputType, m.response],
    ] as const)
      if (got !== `.${codec.typeUrl.slice(1)}`)
        throw new Error(
          `${name}/${m.name}: the ${what} type is ${got} in ${file.name} but the codec encodes ${codec.typeUrl}`,
        );
  }
}

/**
 * Every file of the set, encoded, with each service reduced to the served methods and the services
 * not served left out; every other byte as generated. Throws when a served service or method is
 * missing from the set or its request or response type differs from the codec's.
 */
export function fileDescriptors(
  services: ServiceSpec[] = SERVICES,
  files: Uint8Array[] = committedFiles(),
): Uint8Array[] {
  const served = new Map(services.map((s) => [s.name, s]));
  const described = new Set<string>();
  const out = files.map((bytes) => {
    // read-only: names and types survive the generated codec; the bytes served are the originals
    const file = FileDescriptorProto.decode(bytes);
    if (file.service.length === 0) return bytes;
    const kept = rawFields(bytes).flatMap((field) => {
      if (field.number !== FILE_SERVICE) return [field.raw];
      const service = ServiceDescriptorProto.decode(field.payload!);
      const spec = served.get(`${file.package}.${service.name}`);
      if (!spec) return [];
      checkDeclared(spec, file, service);
      described.add(spec.name);
      const methods = rawFields(field.payload!).filter(
        (f) =>
          f.number !== SERVICE_METHOD ||
          spec.methods.some((m) => m.name === MethodDescriptorProto.decode(f.payload!).name),
      );
      return [lengthDelimitedField(FILE_SERVICE, concatBytes(...methods.map((f) => f.raw)))];
    });
    return concatBytes(...kept);
  });
  for (const s of services)
    if (!described.has(s.name))
      throw new Error(
        `${s.name} is served, but the descriptor set has no ${s.file} declaring it; ${REGENERATE}`,
      );
  return out;
}

/**
 * The package-definition shape `@grpc/reflection`'s ReflectionService reads (proto-loader's
 * `loadSync` output): objects carrying `fileDescriptorProtos`, the encoded files.
 */
export function reflectionPackage(): Record<string, { fileDescriptorProtos: Buffer[] }> {
  return { chaind: { fileDescriptorProtos: fileDescriptors().map((f) => Buffer.from(f)) } };
}
