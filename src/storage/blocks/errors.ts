import { ByteReader } from '../../primitives/byte-io.ts';
import { ChainError } from '../../util/errors.ts';

/** A block, receipt or result handed to the store breaks an invariant; nothing was written. */
export class InvalidBlockDataError extends ChainError {
  constructor(message: string) {
    super('BLOCKSTORE_INVALID_DATA', message);
  }
}

/** putBlock at a height that does not extend the stored chain by exactly one block. */
export class BlockHeightError extends ChainError {
  readonly expected: number | undefined;
  readonly got: number;
  constructor(got: number, expected: number | undefined) {
    super(
      'BLOCKSTORE_HEIGHT',
      expected === undefined
        ? `block store: height ${got} is not a positive integer`
        : `block store: cannot store height ${got}; the next height is ${expected} (rollback with truncateAbove first)`,
    );
    this.expected = expected;
    this.got = got;
  }
}

/** A stored record cannot be decoded: the database is damaged or written by an unknown format. */
export class CorruptRecordError extends ChainError {
  constructor(what: string, detail: string) {
    super('BLOCKSTORE_CORRUPT', `block store: ${what} record is unreadable (${detail})`);
  }
}

/**
 * A reader over one stored record whose damage is a CorruptRecordError naming the record kind. Its
 * views need no copy: records are fresh copies from the engine.
 */
export function recordReader(buf: Uint8Array, what: string, off = 0): ByteReader {
  return new ByteReader(
    buf,
    (detail, r) => new CorruptRecordError(what, `${detail} at byte ${r.off} of ${r.buf.length}`),
    off,
  );
}

/** A getLogs query is malformed (range, topic count, address or topic length, limit). */
export class InvalidLogQueryError extends ChainError {
  constructor(message: string) {
    super('LOG_QUERY_INVALID', message);
  }
}

/** The store was used after close(). */
export class BlockStoreClosedError extends ChainError {
  constructor(path: string) {
    super('BLOCKSTORE_CLOSED', `block store at ${path} is closed`);
  }
}
