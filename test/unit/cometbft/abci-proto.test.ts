/**
 * The ABCI messages chaind encodes and decodes (cosmjs-types' tendermint/abci codecs) against the
 * pinned CometBFT's own .proto files, byte for byte: for every Request and Response variant, a
 * message with every field set is encoded from the .proto definition, decoded and encoded again by
 * cosmjs-types, and must come back identical (a field cosmjs-types lacks, numbers differently or
 * types differently would not).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import * as abci from 'cosmjs-types/tendermint/abci/types';
import { COMETBFT_MODULE, COMETBFT_VERSION } from '../../../src/cometbft/binary.ts';

function modCache(): string | undefined {
  try {
    return execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

const cache = modCache();
const cometDir = cache && join(cache, `${COMETBFT_MODULE}@v${COMETBFT_VERSION}`);
const protoFile = cometDir && join(cometDir, 'proto', 'tendermint', 'abci', 'types.proto');

function loadRoot(): protobuf.Root {
  const gogo = join(cache!, 'github.com', 'cosmos', 'gogoproto@v1.7.0');
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    // gogo's options extend descriptor.proto, which protobufjs does not bundle; the rest it does
    if (target === 'google/protobuf/descriptor.proto') return join(gogo, 'protobuf', target);
    if (target.startsWith('google/protobuf/')) return target;
    if (target.startsWith('gogoproto/')) return join(gogo, target);
    if (target.startsWith('tendermint/')) return join(cometDir!, 'proto', target);
    return target;
  };
  root.loadSync(join(cometDir!, 'proto', 'tendermint', 'abci', 'types.proto'), { keepCase: false });
  root.resolveAll();
  return root;
}

/** A value for every field (and one element in every repeated field), nested a few levels deep. */
function sample(type: protobuf.Type, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  type.fieldsArray.forEach((f, i) => {
    const one = () => {
      if (f.resolvedType instanceof protobuf.Enum)
        return Object.values(f.resolvedType.values).find((v) => v !== 0) ?? 0;
      if (f.resolvedType instanceof protobuf.Type) return depth > 4 ? {} : sample(f.resolvedType, depth + 1);
      switch (f.type) {
        case 'string':
          return `s${i}`;
        case 'bytes':
          return Uint8Array.of(i + 1, 0xab);
        case 'bool':
          return true;
        case 'double':
        case 'float':
          return 1.5;
        default:
          return i + 3; // every integer kind
      }
    };
    // a oneof keeps one member: the first
    if (f.partOf && f.partOf.oneof[0] !== f.name) return;
    out[f.name] = f.repeated ? [one()] : one();
  });
  return out;
}

const canRun = protoFile !== undefined && existsSync(protoFile);

test('every ABCI request and response variant round-trips byte for byte through cosmjs-types', (t) => {
  if (!canRun) {
    if (process.env.CI)
      throw new Error(`CometBFT's .proto files are missing (${protoFile}): run npm run install:cometbft`);
    return t.skip('CometBFT sources not in the Go module cache (npm run install:cometbft)');
  }
  const root = loadRoot();
  for (const envelope of ['Request', 'Response'] as const) {
    const type = root.lookupType(`tendermint.abci.${envelope}`);
    const codec = abci[envelope] as {
      encode(m: unknown): { finish(): Uint8Array };
      decode(b: Uint8Array): unknown;
    };
    const variants = type.oneofs.value.fieldsArray;
    assert.ok(variants.length >= 16, `${envelope} has its ABCI++ variants`);
    for (const variant of variants) {
      const inner = variant.resolvedType as protobuf.Type;
      const message = type.fromObject({ [variant.name]: sample(inner) });
      const bytes = type.encode(message).finish();
      const again = codec.encode(codec.decode(bytes)).finish();
      assert.deepEqual(
        Buffer.from(again).toString('hex'),
        Buffer.from(bytes).toString('hex'),
        `${envelope}.${variant.name} (${inner.name})`,
      );
    }
  }
});
