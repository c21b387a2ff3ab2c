/**
 * A cap on the connections a listener keeps open. Every socket costs a file descriptor, and the
 * process has a fixed number of them, shared with the stores and block production: a listener that
 * accepted without bound let a flood of idle sockets exhaust them, after which the node could not
 * even write its validator state. A connection over the cap is told why (one short answer in the
 * listener's protocol, naming the config key) and closed at once.
 */
import type { Socket } from 'node:net';
import type { Logger } from '../../util/logger.ts';

export interface ConnectionCap {
  /** Most connections open at once. */
  max: number;
  /** The configuration key that sets `max` (e.g. `[evm] http_max_connections`), named in refusals. */
  key: string;
}

/**
 * Sockets being refused that may linger to deliver their answer; past this many (a flood), refused
 * sockets are closed without one, so refusing never holds more than a few descriptors.
 */
const MAX_LINGERING = 64;
/** How long a refused socket may linger for its answer to be read. */
const LINGER_MS = 1_000;
/** Refusals are logged at most this often (with how many happened since the last line). */
const LOG_INTERVAL_MS = 10_000;

export class ConnectionGate {
  private readonly cap: ConnectionCap;
  private readonly what: string;
  private readonly log: Logger;
  private readonly refusal: (message: string) => string | undefined;
  /** Connections open, counted in memory other threads listening on the same port share. */
  private readonly count: Int32Array;
  private lingering = 0;
  private refusedSinceLog = 0;
  private lastLog = 0;

  /**
   * `what` names the listener in messages; `refusal` turns the message into the bytes a refused
   * client gets (undefined: none, the socket is just closed, e.g. for HTTP/2).
   */
  /**
   * `shared`: an Int32Array[1] over a SharedArrayBuffer that every thread listening on the same port
   * (SO_REUSEPORT) counts its connections in, so that the cap holds for the port as a whole.
   */
  constructor(
    cap: ConnectionCap,
    what: string,
    log: Logger,
    refusal: (message: string) => string | undefined = httpRefusal,
    shared?: Int32Array,
  ) {
    this.cap = cap;
    this.what = what;
    this.log = log;
    this.refusal = refusal;
    this.count = shared ?? new Int32Array(1);
  }

  /** Connections open on the port (every thread sharing the count). */
  get open(): number {
    return Atomics.load(this.count, 0);
  }

  get message(): string {
    return `too many connections: the ${this.what} keeps at most ${this.cap.max} open (${this.cap.key})`;
  }

  /** Counts `socket` until it closes and returns true; or refuses it (answers, closes) and returns false. */
  admit(socket: Socket): boolean {
    if (Atomics.add(this.count, 0, 1) < this.cap.max) {
      socket.once('close', () => Atomics.sub(this.count, 0, 1));
      return true;
    }
    Atomics.sub(this.count, 0, 1);
    this.refuse(socket);
    return false;
  }

  private refuse(socket: Socket): void {
    this.refusedSinceLog++;
    const now = Date.now();
    if (now - this.lastLog >= LOG_INTERVAL_MS) {
      this.log.warn(
        { listener: this.what, max: this.cap.max, key: this.cap.key, refused: this.refusedSinceLog },
        'connections refused: the listener is at its connection cap',
      );
      this.lastLog = now;
      this.refusedSinceLog = 0;
    }
    socket.on('error', () => {});
    const answer = this.refusal(this.message);
    if (answer === undefined || this.lingering >= MAX_LINGERING) {
      socket.destroy();
      return;
    }
    this.lingering++;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => {
      this.lingering--;
      clearTimeout(timer);
    });
    // Read (and drop) what the client sends: closing with unread bytes would reset the connection
    // and could discard the answer before the client reads it.
    socket.resume();
    socket.end(answer);
  }
}

/** A plain-text HTTP 503 carrying `message`. */
export function httpRefusal(message: string, type = 'text/plain', body = message + '\n'): string {
  return (
    `HTTP/1.1 503 Service Unavailable\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `connection: close\r\n\r\n${body}`
  );
}

/** An HTTP 503 whose body is a JSON-RPC error (-32005, limit exceeded) carrying `message`. */
export function jsonRpcRefusal(message: string): string {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32005, message } });
  return httpRefusal(message, 'application/json', body);
}
