/**
 * Protobuf file descriptors for server reflection (`grpcurl list`, `describe`, and calls by JSON).
 * The SDK's `.proto` sources are not shipped with cosmjs-types, so the descriptors are built from
 * PROTO_FILES (messages, enums) and SERVICES (methods, whose message types come from the codecs'
 * `typeUrl`s), with each file's imports derived from the types its fields reference.
 */
import {
  DescriptorProto,
  EnumDescriptorProto,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProto,
} from 'cosmjs-types/google/protobuf/descriptor';
import { PROTO_FILES, type ProtoFile } from './proto-files.ts';
import { SERVICES } from './services.ts';

const SCALAR: Record<string, FieldDescriptorProto_Type> = {
  string: FieldDescriptorProto_Type.TYPE_STRING,
  bytes: FieldDescriptorProto_Type.TYPE_BYTES,
  bool: FieldDescriptorProto_Type.TYPE_BOOL,
  int32: FieldDescriptorProto_Type.TYPE_INT32,
  int64: FieldDescriptorProto_Type.TYPE_INT64,
  uint32: FieldDescriptorProto_Type.TYPE_UINT32,
  uint64: FieldDescriptorProto_Type.TYPE_UINT64,
};

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** Fully qualified type name (with the leading dot) → the file declaring it. */
function declarations(): Map<string, ProtoFile> {
  const out = new Map<string, ProtoFile>();
  for (const f of PROTO_FILES)
    for (const name of [...Object.keys(f.messages), ...Object.keys(f.enums ?? {})])
      out.set(`.${f.package}.${name}`, f);
  return out;
}

function fileDescriptor(file: ProtoFile, declared: Map<string, ProtoFile>): FileDescriptorProto {
  const deps = new Set<string>();
  const typeRef = (fqn: string, where: string) => {
    const owner = declared.get(fqn);
    if (!owner) throw new Error(`${where}: type ${fqn} is not declared in PROTO_FILES`);
    if (owner !== file) deps.add(owner.name);
    return fqn;
  };
  const messageType = Object.entries(file.messages).map(([name, fields]) =>
    DescriptorProto.fromPartial({
      name,
      field: fields.map(([field, number, spec]) => {
        const repeated = spec.endsWith('[]');
        const t = repeated ? spec.slice(0, -2) : spec;
        const where = `${file.package}.${name}.${field}`;
        const kind = t.startsWith('enum:')
          ? { type: FieldDescriptorProto_Type.TYPE_ENUM, typeName: typeRef(t.slice(5), where) }
          : t.startsWith('.')
            ? { type: FieldDescriptorProto_Type.TYPE_MESSAGE, typeName: typeRef(t, where) }
            : { type: SCALAR[t] };
        if (kind.type === undefined) throw new Error(`${where}: unknown scalar type ${t}`);
        const label = repeated
          ? FieldDescriptorProto_Label.LABEL_REPEATED
          : FieldDescriptorProto_Label.LABEL_OPTIONAL;
        return { name: field, number, label, jsonName: camel(field), ...kind };
      }),
    }),
  );
  const enumType = Object.entries(file.enums ?? {}).map(([name, values]) =>
    EnumDescriptorProto.fromPartial({ name, value: values.map((v, number) => ({ name: v, number })) }),
  );
  const service = SERVICES.filter((s) => s.file === file.name).map((s) => ({
    name: s.name.slice(file.package.length + 1),
    method: s.methods.map((m) => ({
      name: m.name,
      inputType: typeRef(`.${m.request.typeUrl.slice(1)}`, `${s.name}/${m.name}`),
      outputType: typeRef(`.${m.response.typeUrl.slice(1)}`, `${s.name}/${m.name}`),
    })),
  }));
  return FileDescriptorProto.fromPartial({
    name: file.name,
    package: file.package,
    dependency: [...deps],
    messageType,
    enumType,
    service,
    syntax: 'proto3',
  });
}

/** Every file, services included; throws when a referenced type or a service's file is missing. */
export function fileDescriptors(): FileDescriptorProto[] {
  const declared = declarations();
  const files = PROTO_FILES.map((f) => fileDescriptor(f, declared));
  for (const s of SERVICES)
    if (!PROTO_FILES.some((f) => f.name === s.file))
      throw new Error(`${s.name}: file ${s.file} is not in PROTO_FILES`);
  return files;
}

/**
 * The package-definition shape `@grpc/reflection`'s ReflectionService reads (proto-loader's
 * `loadSync` output): objects carrying `fileDescriptorProtos`, the encoded files.
 */
export function reflectionPackage(): Record<string, { fileDescriptorProtos: Buffer[] }> {
  const encoded = fileDescriptors().map((f) => Buffer.from(FileDescriptorProto.encode(f).finish()));
  return { chaind: { fileDescriptorProtos: encoded } };
}
