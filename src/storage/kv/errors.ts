import { ChainError } from '../../util/errors.ts';

/** The configured engine's npm package is not installed (RocksDB is an optional dependency). */
export class KVEngineMissingError extends ChainError {
  readonly packageName: string;
  constructor(engine: string, packageName: string, cause?: unknown) {
    super(
      'KV_ENGINE_MISSING',
      `the ${engine} storage engine needs the npm package "${packageName}", which is not installed: ` +
        `run \`npm install ${packageName}\` in the node's directory, or choose ss-backend = "pebbledb"`,
      { cause },
    );
    this.packageName = packageName;
  }
}

/** A read or write reached a store after `close()`. */
export class KVClosedError extends ChainError {
  constructor(engine: string, path: string) {
    super('KV_CLOSED', `${engine} database at ${path} is closed`);
  }
}
