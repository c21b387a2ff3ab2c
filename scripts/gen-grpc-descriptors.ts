/**
 * Regenerates src/rpc/grpc/descriptor-set.binpb, the FileDescriptorSet gRPC reflection serves: the
 * real `.proto` files declaring the served services (SERVICES) and the types packed in their `Any`s
 * (ANY_TYPE_FILES), with everything they import, compiled by scripts/grpc-descriptors (a small Go
 * program around bufbuild/protocompile). The sources are the pinned Go modules below, fetched into
 * the Go module cache with `go mod download`, plus this repository's own proto/ (chaind's messages).
 * Needs Go and the module proxy; the node and the tests only read the committed output.
 *
 * Usage: node scripts/gen-grpc-descriptors.ts
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { COMETBFT_MODULE, COMETBFT_VERSION } from '../src/cometbft/binary.ts';
import { ANY_TYPE_FILES, DESCRIPTOR_SET_PATH } from '../src/rpc/grpc/descriptors.ts';
import { SERVICES } from '../src/rpc/grpc/services.ts';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Where each import path comes from, earlier winning: CometBFT's own protos before the copies the
 * SDK vendors (the node speaks CometBFT v0.38's types), the SDK release whose types cosmjs-types
 * 0.11 was generated from, and the SDK's buf dependencies (gogoproto, cosmos_proto, google.api).
 */
const MODULES: { module: string; version: string; protoDir: string }[] = [
  { module: COMETBFT_MODULE, version: `v${COMETBFT_VERSION}`, protoDir: 'proto' },
  { module: 'github.com/cosmos/cosmos-sdk', version: 'v0.53.4', protoDir: 'proto' },
  { module: 'github.com/cosmos/cosmos-proto', version: 'v1.0.0-beta.5', protoDir: 'proto' },
  { module: 'github.com/cosmos/gogoproto', version: 'v1.7.0', protoDir: '.' },
  {
    module: 'github.com/grpc-ecosystem/grpc-gateway',
    version: 'v1.16.0',
    protoDir: 'third_party/googleapis',
  },
];

function moduleDir(module: string, version: string): string {
  const out = execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], {
    encoding: 'utf8',
    cwd: join(ROOT, 'scripts/grpc-descriptors'),
    env: { ...process.env, GOFLAGS: '-mod=mod' },
  });
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${module}@${version}: ${info.Error ?? 'no Dir'}`);
  return info.Dir;
}

const imports = [
  join(ROOT, 'proto'),
  ...MODULES.map((m) => join(moduleDir(m.module, m.version), m.protoDir)),
];
const roots = [...new Set([...SERVICES.map((s) => s.file), ...ANY_TYPE_FILES])];
execFileSync(
  'go',
  ['run', '.', '-o', DESCRIPTOR_SET_PATH, ...imports.flatMap((dir) => ['-I', dir]), ...roots],
  {
    stdio: 'inherit',
    cwd: join(ROOT, 'scripts/grpc-descriptors'),
    env: { ...process.env, GOFLAGS: '-mod=mod' },
  },
);
