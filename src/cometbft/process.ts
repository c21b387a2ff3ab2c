/**
 * The `cometbft` child process: started with the rendered home, its output written again through
 * chaind's logger (with the spec's lines added, log-lines.ts), stopped on the node's stop. If it
 * exits on its own, the node reports why (CometBFT's last error) and stops: one `chaind start` is one
 * node, and a node whose consensus engine is gone must not keep answering as if it were alive.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../util/logger.ts';
import { type CometLogRecord, type CometLogTranslator, parseCometLine } from './log-lines.ts';

export interface CometProcessOptions {
  binary: string;
  cometHome: string;
  logger: Logger;
  translator: CometLogTranslator;
  /** Called once if the child exits while the node did not ask it to. */
  onUnexpectedExit(reason: string): void;
}

/** How long CometBFT gets to stop after SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;

export class CometProcess {
  private readonly o: CometProcessOptions;
  private child: ChildProcess | undefined;
  private stopping = false;
  private exited: Promise<void> = Promise.resolve();
  /** CometBFT's last error line: what the node reports if the child dies. */
  private lastError = '';
  /**
   * The error CometBFT's command line printed before exiting (`ERROR: failed to start node: …`): why
   * it stopped, where the error lines logged after it are only its shutdown's consequences.
   */
  private fatal = '';
  private panic: string[] = [];
  /** The lines of a panic message being read. */
  private panicText: string[] | undefined;
  private panicDump = false;

  constructor(o: CometProcessOptions) {
    this.o = o;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const log = this.o.logger;
    const child = spawn(this.o.binary, ['start', '--home', this.o.cometHome], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        resolve();
        if (this.stopping) return;
        const how = signal ? `signal ${signal}` : `code ${code}`;
        if (this.panicText) {
          this.emit({ level: 'error', msg: this.panicText.join(' '), fields: {} });
          this.panicText = undefined;
        }
        const last = this.panic[0] ?? (this.fatal || this.lastError);
        const reason = `cometbft exited with ${how}${last ? `: ${last}` : ''}`;
        log.error({ module: 'cometbft', pid: child.pid }, reason);
        this.o.onUnexpectedExit(reason);
      });
    });
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => this.relay(line));
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    log.info({ module: 'cometbft', pid: child.pid, home: this.o.cometHome }, 'cometbft started');
  }

  /**
   * A Go panic is several raw lines (its message may span lines) and then the goroutine dump: the
   * message lines are joined into one record, the dump goes to debug.
   */
  private relay(line: string): void {
    const raw = !line.trimStart().startsWith('{');
    if (raw && line.startsWith('panic: ')) {
      this.panicText = [line];
      return;
    }
    if (this.panicText) {
      if (raw && !line.startsWith('goroutine ')) {
        // CometBFT's app-hash panics go on to dump the whole state or block: not part of the message
        if (/^(State|Block):/.test(line)) this.panicDump = true;
        if (line.trim() !== '' && !this.panicDump) this.panicText.push(line.trim());
        return;
      }
      this.panicDump = false;
      const text = this.panicText.join(' ');
      this.panicText = undefined;
      this.emit({ level: 'error', msg: text, fields: {} });
    }
    if (raw && line.startsWith('ERROR: ')) {
      this.fatal = line.slice('ERROR: '.length).trim();
      this.emit({ level: 'error', msg: this.fatal, fields: {} });
      return;
    }
    if (raw && this.panic.length > 0) {
      this.o.logger.debug({ module: 'cometbft' }, line);
      return;
    }
    const rec = parseCometLine(line);
    if (rec) this.emit(rec);
  }

  private emit(rec: CometLogRecord): void {
    const log = this.o.logger;
    const fields = rec.module ? { module: rec.module, ...rec.fields } : { module: 'cometbft', ...rec.fields };
    log[rec.level](fields, rec.msg);
    if (rec.level === 'error') {
      const err = rec.fields.err ?? rec.fields.error;
      this.lastError = err !== undefined ? `${rec.msg}: ${String(err)}` : rec.msg;
      if (rec.msg.startsWith('panic:')) this.panic.push(rec.msg);
    }
    for (const extra of this.o.translator.translate(rec)) {
      log[extra.level]({ module: rec.module ?? 'cometbft', ...extra.fields }, extra.msg);
    }
  }

  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.stopping = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}
