/**
 * Double-sign protection: the last height/round/step the validator signed, kept in
 * data/priv_validator_state.json (CometBFT's shape). Signing anything at or below the last signed
 * position is refused, except re-signing the identical bytes (after a crash), which returns the saved
 * signature.
 *
 * The embedded producer signs a precommit only for a block already durable in the block store, with
 * the block time as the vote time, so the bytes it signs at a height can never differ from the bytes
 * it signed there before, even if the file lost its last write: a restart re-derives the identical
 * signature from the stored block. The file is therefore written off the event loop, one write after
 * another, and a write must have finished (`flushed`) before the next position is signed and before
 * the producer stops; a failed write fails the next signing, so production halts with its error
 * instead of signing on without protection. `chaind rollback` rewinds the file on purpose (`reset`).
 */
import {
  close,
  existsSync,
  fdatasync,
  fsync,
  mkdirSync,
  open,
  readFileSync,
  rename,
  write,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { equalBytes } from '../primitives/bytes.ts';
import { ChainError } from '../util/errors.ts';

export const STEP_PRECOMMIT = 3;

export interface SignerPosition {
  height: number;
  round: number;
  step: number;
}

interface StateFile {
  height: string;
  round: number;
  step: number;
  signature?: string;
  signbytes?: string;
}

export class DoubleSignError extends ChainError {
  constructor(message: string) {
    super('DOUBLE_SIGN', message);
  }
}

export interface SignerStateOptions {
  /**
   * false: the guard is kept in memory only, after reading the file once (a throwaway home, removed
   * on exit: no restart will read it, and a file write per block costs the block's critical path).
   */
  persist?: boolean;
}

export class SignerState {
  readonly path: string;
  private readonly persist: boolean;
  private state: StateFile;
  /** The write of the last signed position, in flight or finished; rejects if it failed. */
  private writing: Promise<void> = Promise.resolve();
  private writeError: Error | undefined;

  /**
   * Opens the state file; on a chain that has produced nothing yet a missing file is created at
   * height 0 (a home whose db_dir was changed after init). Once blocks exist a missing file is an
   * error: starting over from height 0 could sign a second block at a height already signed.
   */
  static open(path: string, chainIsFresh: boolean, options: SignerStateOptions = {}): SignerState {
    if (chainIsFresh && !existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, JSON.stringify({ height: '0', round: 0, step: 0 }, null, 2) + '\n', {
        mode: 0o600,
      });
    }
    return new SignerState(path, options);
  }

  constructor(path: string, options: SignerStateOptions = {}) {
    this.path = path;
    this.persist = options.persist !== false;
    let parsed: StateFile;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new ChainError(
        'SIGNER_STATE',
        `${path}: cannot read validator state (${(err as Error).message}); it guards against double signing: restore it from the validator's previous data directory`,
      );
    }
    if (
      !/^\d+$/.test(String(parsed.height)) ||
      !Number.isInteger(parsed.round) ||
      !Number.isInteger(parsed.step)
    ) {
      throw new ChainError('SIGNER_STATE', `${path}: expected {"height":"<n>","round":<n>,"step":<n>}`);
    }
    this.state = parsed;
  }

  get position(): SignerPosition {
    return { height: Number(this.state.height), round: this.state.round, step: this.state.step };
  }

  /** The saved signature of the last signed bytes, if any. */
  get lastSigned(): { signBytes: Uint8Array; signature: Uint8Array } | undefined {
    if (!this.state.signature || !this.state.signbytes) return undefined;
    return {
      signBytes: new Uint8Array(Buffer.from(this.state.signbytes, 'hex')),
      signature: new Uint8Array(Buffer.from(this.state.signature, 'base64')),
    };
  }

  /**
   * Throws the refusal `sign` would give for bytes not signed before at `pos`: checked before a block
   * is built, so no block is committed that its validator then refuses to sign.
   */
  assertCanSign(pos: SignerPosition): void {
    if (this.compare(pos) <= 0) throw this.alreadySigned(pos);
  }

  /** Signs through `sign` only if (height, round, step) is past the last signed position. */
  sign(pos: SignerPosition, signBytes: Uint8Array, sign: (bytes: Uint8Array) => Uint8Array): Uint8Array {
    const cmp = this.compare(pos);
    if (cmp < 0) throw this.alreadySigned(pos);
    if (cmp === 0) {
      const saved = this.lastSigned;
      if (saved && equalBytes(saved.signBytes, signBytes)) return saved.signature;
      throw new DoubleSignError(
        `refusing to sign different data at height ${pos.height} round ${pos.round} step ${pos.step}`,
      );
    }
    if (this.writeError) throw this.writeFailed(this.writeError);
    const signature = sign(signBytes);
    this.persistAsync({
      height: String(pos.height),
      round: pos.round,
      step: pos.step,
      signature: Buffer.from(signature).toString('base64'),
      signbytes: Buffer.from(signBytes).toString('hex').toUpperCase(),
    });
    return signature;
  }

  /** Resolves once the last signed position is on disk; throws if writing it failed. */
  async flushed(): Promise<void> {
    await this.writing;
    if (this.writeError) throw this.writeFailed(this.writeError);
  }

  private writeFailed(err: Error): ChainError {
    return new ChainError(
      'SIGNER_STATE',
      `${this.path}: cannot write validator state (${err.message}); signing stops until the node restarts with a writable data directory`,
    );
  }

  private compare(pos: SignerPosition): number {
    const last = this.position;
    return pos.height - last.height || pos.round - last.round || pos.step - last.step;
  }

  private alreadySigned(pos: SignerPosition): DoubleSignError {
    const last = this.position;
    return new DoubleSignError(
      `refusing to sign height ${pos.height} round ${pos.round} step ${pos.step}: already signed height ${last.height} round ${last.round} step ${last.step}`,
    );
  }

  /**
   * Rewinds after a rollback (the operator accepted the double-sign risk, see
   * docs/operators/rollback.md); resolves once the file holds it. Written after any save still in
   * flight, so it is the one that lasts.
   */
  async reset(pos: SignerPosition): Promise<void> {
    this.persistAsync({ height: String(pos.height), round: pos.round, step: pos.step });
    await this.flushed();
  }

  /** Takes `next` as the guard at once and writes it after the writes before it. */
  private persistAsync(next: StateFile): void {
    this.state = next;
    if (!this.persist) return;
    const tmp = join(dirname(this.path), '.priv_validator_state.json.tmp');
    const text = JSON.stringify(next, null, 2) + '\n';
    this.writing = this.writing.then(async () => {
      try {
        if (!this.writeError) await replaceFile(tmp, this.path, text);
      } catch (err) {
        this.writeError = err as Error;
      }
    });
  }
}

/**
 * Writes `text` to `tmp`, syncs it, renames it over `path` and syncs the directory: a crash leaves
 * the old file or the new one. Callback fs calls, not FileHandle's: this runs once per block, and
 * FileHandle's promises cost the event loop several times as much.
 */
function replaceFile(tmp: string, path: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error, fd?: number) => (fd === undefined ? reject(err) : close(fd, () => reject(err)));
    open(tmp, 'w', 0o600, (err, fd) => {
      if (err) return fail(err);
      const bytes = Buffer.from(text);
      write(fd, bytes, 0, bytes.length, 0, (err, written) => {
        if (err) return fail(err, fd);
        if (written !== bytes.length)
          return fail(new Error(`short write: ${written} of ${bytes.length} bytes`), fd);
        fdatasync(fd, (err) => {
          if (err) return fail(err, fd);
          close(fd, (err) => {
            if (err) return fail(err);
            rename(tmp, path, (err) => {
              if (err) return fail(err);
              open(dirname(path), 'r', (err, dir) => {
                if (err) return fail(err);
                fsync(dir, (err) => {
                  if (err) return fail(err, dir);
                  close(dir, (err) => (err ? reject(err) : resolve()));
                });
              });
            });
          });
        });
      });
    });
  });
}
