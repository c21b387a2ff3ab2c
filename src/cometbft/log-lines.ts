/**
 * CometBFT's log lines, read from its JSON output and written again through chaind's logger (module
 * names kept), plus the lines the operator runbook (and the spec's log table) searches for, where
 * CometBFT words the same event differently. Each added line is produced only by its real cause:
 *
 * | chaind's line                                   | CometBFT's event                                         |
 * |-------------------------------------------------|----------------------------------------------------------|
 * | wrong Block.Header.AppHash. Expected X, got Y   | a block whose header disagrees with this node's state     |
 * |   (block_id, height)                            | (consensus, block sync), or a handshake whose app hash   |
 * |                                                 | disagrees with CometBFT's state                          |
 * | failed to handshake with peer (expected, actual)| a dialed peer answered with another node ID               |
 * | failed to send request for peers                | PEX has no peer to ask and no address to dial            |
 * | peer handshake failed (err=EOF)                 | a connection closed during the secret-connection handshake |
 * | state-sync chunk answered missing (height,      | a provider answered a chunk request with no chunk (its    |
 * |   chunk)                                        | snapshot was pruned or deleted): "Failed to add chunk"    |
 *
 * State-sync events the restore's progress needs (restore-progress.ts) are passed to `onStateSync`:
 * a chunk answered missing, and a snapshot CometBFT gave up itself (rejected, timed out).
 *
 * An error that says a write found no space left on device is reported to `onOutOfDisk` with the
 * directory it names, which stops the chain with chaind's own out-of-disk line (chain.ts).
 */
import type { LogLevel } from '../util/logger.ts';
import { noSpaceDirIn } from '../util/out-of-disk.ts';

/** One CometBFT log record: its JSON line, or a raw line (a Go panic and its trace are not JSON). */
export interface CometLogRecord {
  level: LogLevel;
  msg: string;
  module?: string;
  fields: Record<string, unknown>;
}

export interface SpecLine {
  level: LogLevel;
  msg: string;
  fields: Record<string, unknown>;
}

/** What CometBFT's state sync did that the application is not told through ABCI. */
export type StateSyncEvent =
  { kind: 'chunk-missing'; height?: number; chunk?: number } | { kind: 'snapshot-given-up'; height?: number };

/** CometBFT's lines (statesync/syncer.go) for a snapshot it stops restoring and leaves for another. */
const GIVEN_UP = new Set([
  'Snapshot rejected',
  'Timed out waiting for snapshot chunks, rejected snapshot',
  'Timed out validating snapshot, rejecting',
  'Snapshot format rejected',
  'Snapshot senders rejected',
]);

/** An app-hash mismatch: what every health signal reports from then on. */
export interface AppHashMismatch {
  expected: string;
  got: string;
  height?: number;
  blockId?: string;
}

const LEVELS: Record<string, LogLevel> = {
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  // Go's panic output and anything else unparsed
  panic: 'error',
};

/** Parses one line of CometBFT's output (log_format = "json"). */
export function parseCometLine(line: string): CometLogRecord | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  if (text.startsWith('{')) {
    try {
      const rec = JSON.parse(text) as Record<string, unknown>;
      const { level, ts: _ts, _msg, module, ...fields } = rec;
      return {
        level: LEVELS[String(level)] ?? 'info',
        msg: String(_msg ?? ''),
        module: typeof module === 'string' ? module : undefined,
        fields,
      };
    } catch {
      // not JSON after all: fall through
    }
  }
  return { level: /^panic|^fatal|^goroutine|^\s/.test(text) ? 'error' : 'info', msg: text, fields: {} };
}

const APP_HASH_RE = /wrong Block\.Header\.AppHash\.\s+Expected ([0-9A-Fa-f]*), got ([0-9A-Fa-f]*)/;
const HANDSHAKE_HASH_RE =
  /(?:state|block)\.AppHash does not match AppHash after replay\. Got\s+([0-9A-Fa-f]*), expected ([0-9A-Fa-f]*)/;
const PEER_ID_RE = /conn\.ID \(([0-9a-fA-F]+)\) dialed ID \(([0-9a-fA-F]+)\) mismatch/;

/**
 * Reads CometBFT's records and says which spec lines each one adds. Stateful only to report each
 * app-hash mismatch once per height (CometBFT repeats it at every retry). `context` supplies what
 * the record may not carry: this node's latest height and its block hash.
 */
export class CometLogTranslator {
  private readonly reported = new Set<string>();
  private readonly context: () => { latestHeight: number; blockHash(height: number): string | undefined };
  private readonly onStateSync: (e: StateSyncEvent) => void;
  mismatch: AppHashMismatch | undefined;
  /** Called at each error CometBFT logs for a write its disk had no space for, with the directory. */
  private readonly onOutOfDisk: (dir: string | undefined) => void;

  constructor(
    context: CometLogTranslator['context'],
    onStateSync: (e: StateSyncEvent) => void = () => {},
    onOutOfDisk: (dir: string | undefined) => void = () => {},
  ) {
    this.context = context;
    this.onStateSync = onStateSync;
    this.onOutOfDisk = onOutOfDisk;
  }

  translate(rec: CometLogRecord): SpecLine[] {
    const text = [rec.msg, ...Object.values(rec.fields).map(String)].join(' ');
    const out: SpecLine[] = [];
    // its consensus WAL, block store or state database could not be written: the disk is full
    if (rec.level === 'error') {
      const dir = noSpaceDirIn(text);
      if (dir !== undefined) this.onOutOfDisk(dir === '' ? undefined : dir);
    }
    const appHash = APP_HASH_RE.exec(text);
    const replay = appHash ? undefined : HANDSHAKE_HASH_RE.exec(text);
    if (appHash || replay) {
      const ctx = this.context();
      const expected = (appHash ? appHash[1] : replay![2]).toUpperCase();
      const got = (appHash ? appHash[2] : replay![1]).toUpperCase();
      // the block whose header disagrees: the record names it (block sync); in consensus it is the
      // next height; at the handshake it is the latest block, whose state CometBFT holds otherwise
      const height = numberField(rec.fields.height) ?? (appHash ? ctx.latestHeight + 1 : ctx.latestHeight);
      const blockId =
        (typeof rec.fields.hash === 'string' ? rec.fields.hash : undefined) ?? ctx.blockHash(height) ?? '';
      const key = `${height}:${expected}:${got}`;
      if (!this.reported.has(key)) {
        this.reported.add(key);
        this.mismatch = { expected, got, height, blockId };
        out.push({
          level: 'error',
          msg: `wrong Block.Header.AppHash. Expected ${expected}, got ${got}`,
          fields: { block_id: blockId, height },
        });
      }
    }
    const peerId = PEER_ID_RE.exec(text);
    if (peerId) {
      out.push({
        level: 'error',
        msg: 'failed to handshake with peer',
        fields: {
          expected: peerId[2],
          actual: peerId[1],
          ...(rec.fields.addr !== undefined ? { addr: String(rec.fields.addr) } : {}),
          err: `peer ID mismatch: dialed ${peerId[2]}, connected to ${peerId[1]}`,
        },
      });
    }
    if (rec.module === 'pex' && /No addresses to dial/.test(rec.msg)) {
      out.push({
        level: 'warn',
        msg: 'failed to send request for peers',
        fields: { err: 'no available peers to send a PEX request to' },
      });
    }
    // the secret-connection handshake is the first thing on a new connection; a peer that hangs up
    // in it makes CometBFT report `auth failure: secret conn failed: EOF`
    const handshake = /secret conn failed: (.*)$/.exec(String(rec.fields.err ?? ''));
    if (handshake && rec.module === 'p2p') {
      const cause = /\bEOF$/.test(handshake[1]) ? 'EOF' : handshake[1];
      out.push({ level: 'warn', msg: 'peer handshake failed', fields: { err: cause } });
    }
    if (rec.module === 'statesync') out.push(...this.stateSync(rec));
    return out;
  }

  private stateSync(rec: CometLogRecord): SpecLine[] {
    const height = numberField(rec.fields.height);
    // a ChunkResponse with Missing set carries no chunk, which the restoring side refuses to queue
    if (rec.msg === 'Failed to add chunk' && /cannot add nil chunk/.test(String(rec.fields.err ?? ''))) {
      const chunk = numberField(rec.fields.chunk);
      this.onStateSync({ kind: 'chunk-missing', height, chunk });
      return [
        {
          level: 'warn',
          msg: 'state-sync chunk answered missing: the provider no longer has the snapshot',
          fields: { height, chunk },
        },
      ];
    }
    if (GIVEN_UP.has(rec.msg)) this.onStateSync({ kind: 'snapshot-given-up', height });
    return [];
  }
}

function numberField(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}
