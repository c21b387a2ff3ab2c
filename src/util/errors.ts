/**
 * Every error the node raises on purpose is a ChainError with a stable `code`, so that the RPC layer
 * can map it to a JSON-RPC code in one table and the CLI can print one clear line.
 */
import type { ErrorCode } from './error-codes.ts';

export type { ErrorCode } from './error-codes.ts';
export class ChainError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Another process holds a database directory (worded as CometBFT/Cosmos nodes word it for a second process on one
 * home, which operators already know). */
export class LockHeldError extends ChainError {
  readonly path: string;
  constructor(path: string, holderPid?: number) {
    super(
      'LOCK_HELD',
      `failed to initialize database: resource temporarily unavailable (lock ${path} is held` +
        (holderPid ? ` by process ${holderPid})` : ')'),
    );
    this.path = path;
  }
}

/** A configuration or genesis file is invalid; the message names file, key and the expected form. */
export class ConfigError extends ChainError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
