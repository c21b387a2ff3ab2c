/**
 * grpcurl, the gRPC client operators reach for, built from source at a pinned version by
 * `npm run install:grpcurl` (scripts/install-grpcurl.ts) into a git-ignored folder of the repository.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const GRPCURL_VERSION = '1.9.3';
export const GRPCURL_MODULE = 'github.com/fullstorydev/grpcurl';

const ROOT = resolve(import.meta.dirname, '../..');

export function grpcurlPath(): string {
  return join(ROOT, '.grpcurl', `v${GRPCURL_VERSION}`, 'grpcurl');
}

/**
 * Whether the pinned version is installed. Built with `go install`, grpcurl reports no version
 * (`dev build <no version set>`), so the version is the folder's: the installer moves a finished
 * build there whole, and the binary must run.
 */
export function grpcurlInstalled(): boolean {
  const path = grpcurlPath();
  return existsSync(path) && spawnSync(path, ['-version'], { encoding: 'utf8' }).status === 0;
}
