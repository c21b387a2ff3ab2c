/**
 * The JSON-RPC server's fast path for plain requests. node:http costs a JSON-RPC read about as much
 * as the read itself (request and response objects, header maps, streams, timers per request), and
 * almost every request a client sends is the same shape: `POST /` over HTTP/1.1 keep-alive with a
 * Host, a JSON content type and a content-length within the limit. Those are parsed here straight
 * from the socket's bytes and answered with the bytes node:http would write (same status line,
 * header order, Date, Connection and Keep-Alive headers).
 *
 * Anything else — another method or path, chunked bodies, Expect, CORS (an Origin header), Upgrade,
 * `Connection: close`, HTTP/1.0, a body over the limit, oversized or unusual headers — hands the
 * connection to the node:http server from that request on: the bytes not yet answered are pushed
 * back into the socket and node:http parses them as if it had read them itself, so every such case
 * keeps node:http's behaviour and error answers.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestFacts } from './admission.ts';
import { AnswerBatch } from './answer-batch.ts';

/** What the fast path needs from the server: the answer of a body, and the node:http fallback. */
export interface FastPathHost {
  /**
   * The JSON answer of a request body (undefined: no answer, e.g. only notifications), extra headers
   * and the status when it is not 200 (a refusal by admission).
   */
  answer(body: Buffer, facts: RequestFacts): Promise<HttpAnswer>;
  /** Gzips `json` when it is large and the client accepts gzip (content-encoding and vary then set). */
  encode(json: string, acceptEncoding: string | undefined): Promise<{ body: string | Buffer; gzip: boolean }>;
  /** Hands a connection to node:http (called with the unanswered bytes already pushed back). */
  fallback(socket: Socket): void;
  /** A request failed unexpectedly (node:http's path answers 500 then). */
  failed(err: unknown): void;
  readonly maxBodyBytes: number;
  readonly keepAliveTimeoutMs: number;
  /** From a request's first byte to the end of its head (`[evm] read_header_timeout`). */
  readonly readHeaderTimeoutMs: number;
  /** From a request's first byte to the end of its body (`[evm] read_timeout`). */
  readonly readTimeoutMs: number;
  /**
   * Answer bytes a connection may leave unread (`[evm] max_buffered_answer_bytes`): past them its
   * next requests wait, unread, until the client has read its answers.
   */
  readonly maxBufferedBytes: number;
}

export interface HttpAnswer {
  json: string | undefined;
  headers?: Readonly<Record<string, string>>;
  status?: number;
}

/** What node:http writes when a request's headers or body time out, before closing the socket. */
export const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/** node:http's default limit on the size of a request's head. */
const MAX_HEAD_BYTES = 16 * 1024;
const JSON_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);
const REQUEST_LINE = 'POST / HTTP/1.1';
/** Header names whose presence needs node:http's handling (`connection` unless it is keep-alive). */
const DELEGATED = new Set(['transfer-encoding', 'expect', 'origin', 'upgrade']);

export interface PlainRequest {
  /** Offset of the body and of the next request in the buffer. */
  bodyStart: number;
  end: number;
  acceptEncoding: string | undefined;
  authorization: string | undefined;
  forwardedFor: string | undefined;
}

/**
 * The plain request at the start of `buf` once its head is in ('incomplete' before): its body is in
 * when `buf` reaches `end`. 'delegate' when it is not one the fast path answers.
 */
export function parsePlainRequest(
  buf: Buffer,
  maxBodyBytes: number,
): PlainRequest | 'incomplete' | 'delegate' {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return buf.length > MAX_HEAD_BYTES ? 'delegate' : 'incomplete';
  if (headEnd > MAX_HEAD_BYTES) return 'delegate';
  const head = buf.toString('latin1', 0, headEnd);
  if (!head.startsWith(REQUEST_LINE) || head.charCodeAt(REQUEST_LINE.length) !== 13) return 'delegate';
  let length = -1;
  let type: string | undefined;
  let host = false;
  let acceptEncoding: string | undefined;
  let authorization: string | undefined;
  let forwardedFor: string | undefined;
  let at = REQUEST_LINE.length + 2;
  while (at < head.length) {
    let eol = head.indexOf('\r\n', at);
    if (eol < 0) eol = head.length;
    const colon = head.indexOf(':', at);
    // a line without a name, a folded line or a space before the colon: node:http decides
    if (colon <= at || colon > eol || head.charCodeAt(at) <= 32 || head.charCodeAt(colon - 1) <= 32)
      return 'delegate';
    const name = head.slice(at, colon).toLowerCase();
    const value = head.slice(colon + 1, eol).trim();
    at = eol + 2;
    if (DELEGATED.has(name)) return 'delegate';
    if (name === 'connection') {
      if (value.toLowerCase() !== 'keep-alive') return 'delegate';
    } else if (name === 'content-length') {
      if (length >= 0 || !/^\d{1,15}$/.test(value)) return 'delegate';
      length = Number(value);
    } else if (name === 'content-type') {
      if (type !== undefined) return 'delegate';
      type = value.split(';')[0].trim().toLowerCase();
    } else if (name === 'host') {
      if (host) return 'delegate';
      host = true;
    } else if (name === 'accept-encoding') {
      if (acceptEncoding !== undefined) return 'delegate';
      acceptEncoding = value;
    } else if (name === 'authorization') {
      if (authorization !== undefined) return 'delegate';
      authorization = value;
    } else if (name === 'x-forwarded-for') {
      // node:http joins repeated ones; the fast path leaves that to it
      if (forwardedFor !== undefined) return 'delegate';
      forwardedFor = value;
    }
  }
  if (length < 0 || length > maxBodyBytes || !host || type === undefined || !JSON_TYPES.has(type))
    return 'delegate';
  const bodyStart = headEnd + 4;
  return { bodyStart, end: bodyStart + length, acceptEncoding, authorization, forwardedFor };
}

let dateSecond = -1;
let dateValue = '';
/** node:http's Date header value, formatted once per second as node:http does. */
function utcDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateValue = new Date(now).toUTCString();
  }
  return dateValue;
}

/**
 * The head node:http writes for `setHeader(extra...)` then `writeHead(status, {content-type,
 * content-length})` on a keep-alive connection.
 */
export function responseHead(
  extra: readonly [string, string][],
  bodyLength: number,
  keepAliveTimeoutMs: number,
  status = '200 OK',
  type = 'application/json',
): string {
  let head = `HTTP/1.1 ${status}\r\n`;
  for (const [k, v] of extra) head += `${k}: ${v}\r\n`;
  return (
    head +
    `content-type: ${type}\r\ncontent-length: ${bodyLength}\r\nDate: ${utcDate()}\r\n` +
    `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveTimeoutMs / 1000)}\r\n\r\n`
  );
}

/** The fast path's connections: answered here until a request needs node:http. */
export class FastConnections {
  private readonly host: FastPathHost;
  /** Connections still on the fast path, and whether each is answering a request now. */
  private readonly sockets = new Map<Socket, { busy: boolean }>();
  private readonly answers = new AnswerBatch();
  private stopping = false;

  constructor(host: FastPathHost) {
    this.host = host;
  }

  accept(socket: Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    const state = { busy: false };
    this.sockets.set(socket, state);
    // Back-pressure: a client that sends requests without reading the answers would otherwise have
    // them pile up in memory (60 pipelined wide eth_getLogs took gigabytes). While its unread answers
    // are over the bound, its requests are neither parsed nor read from the socket; if it never
    // reads, the idle timeout closes the connection.
    let blocked = false;
    /** Unparsed bytes beyond which reading stops while a request is being answered. */
    const maxPendingInput = this.host.maxBodyBytes + 2 * MAX_HEAD_BYTES;
    socket.setNoDelay(true);
    // bytes not answered yet, in order; joined once a whole request is in (a large body arrives in
    // many chunks, and joining or scanning on each would be quadratic)
    let pending: Buffer[] = [];
    let size = 0;
    /** Bytes needed before parsing again: past the head seen so far, or the end of a known body. */
    let need = 1;
    const joined = (): Buffer => {
      const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, size);
      pending = [all];
      return all;
    };
    // idle for the keep-alive timeout: closed; the timer restarts with every read and write, and a
    // request being answered keeps the connection (node:http sets no timeout while answering either)
    const idle = () => {
      if (!state.busy) socket.destroy();
    };
    // A request that has begun must be read in full by fixed deadlines counted from its first byte:
    // the idle timer restarts on every byte, so a client sending one byte at a time would otherwise
    // hold the connection forever. Which deadline runs: the head's until the head is in, then the body's.
    let phase: 'none' | 'head' | 'body' = 'none';
    let started = 0;
    let deadline: NodeJS.Timeout | undefined;
    const expire = () => {
      deadline = undefined;
      this.answers.flush();
      socket.write(REQUEST_TIMEOUT_RESPONSE);
      socket.destroy();
    };
    const waitFor = (next: 'head' | 'body') => {
      if (phase === next) return;
      const now = Date.now();
      if (phase === 'none') started = now;
      phase = next;
      clearTimeout(deadline);
      const limit = next === 'head' ? this.host.readHeaderTimeoutMs : this.host.readTimeoutMs;
      deadline = setTimeout(expire, Math.max(0, started + limit - now));
    };
    const requestIn = () => {
      phase = 'none';
      clearTimeout(deadline);
      deadline = undefined;
    };
    const onData = (chunk: Buffer) => {
      pending.push(chunk);
      size += chunk.length;
      if (state.busy || blocked) {
        if (size > maxPendingInput) socket.pause();
      } else if (size >= need) void pump();
    };
    const onClose = () => {
      clearTimeout(deadline);
      this.sockets.delete(socket);
    };
    const onError = () => socket.destroy();
    const handOff = () => {
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      socket.off('timeout', idle);
      socket.setTimeout(0);
      // node:http's headersTimeout and requestTimeout take over
      requestIn();
      this.sockets.delete(socket);
      // node:http may answer the next request before this turn's answers would be written
      this.answers.flush();
      if (size > 0) socket.unshift(joined());
      this.host.fallback(socket);
    };
    const pump = async () => {
      while (!socket.destroyed && !blocked) {
        // reading stopped while a request was answered (too much input) or answers went unread
        if (socket.isPaused() && size <= maxPendingInput) socket.resume();
        if (size < need) return;
        const buf = joined();
        const req = parsePlainRequest(buf, this.host.maxBodyBytes);
        if (req === 'incomplete') {
          need = size + 1;
          waitFor('head');
          return;
        }
        if (req === 'delegate') return handOff();
        if (buf.length < req.end) {
          need = req.end;
          waitFor('body');
          return;
        }
        requestIn();
        const body = buf.subarray(req.bodyStart, req.end);
        const rest = buf.subarray(req.end);
        pending = rest.length > 0 ? [rest] : [];
        size = rest.length;
        need = 1;
        state.busy = true;
        let out: string | Buffer;
        try {
          out = await this.respond(body, req, socket.remoteAddress);
        } catch (err) {
          // what the node:http path answers when a request fails unexpectedly
          this.host.failed(err);
          out =
            responseHead([], 14, this.host.keepAliveTimeoutMs, '500 Internal Server Error', 'text/plain') +
            'internal error';
        }
        state.busy = false;
        if (socket.destroyed) return;
        const queued = this.answers.write(socket, out);
        if (this.stopping) {
          this.answers.flush();
          socket.end();
          return;
        }
        // what the kernel does not take is only known once written
        if (socket.writableLength + queued > this.host.maxBufferedBytes) this.answers.flush();
        if (socket.writableLength > this.host.maxBufferedBytes) {
          blocked = true;
          socket.pause();
          socket.once('drain', () => {
            blocked = false;
            void pump();
          });
          return;
        }
        if (size >= need) {
          // The next pipelined request waits a turn of the event loop: answers that complete without
          // I/O would otherwise run the whole pipeline while every other connection waits.
          state.busy = true;
          await new Promise((resolve) => setImmediate(resolve));
          state.busy = false;
        }
      }
    };
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', onError);
    socket.on('timeout', idle);
    socket.setTimeout(this.host.keepAliveTimeoutMs);
  }

  private async respond(body: Buffer, req: PlainRequest, peer: string | undefined): Promise<string | Buffer> {
    const {
      json,
      headers,
      status: code,
    } = await this.host.answer(body, {
      peer,
      authorization: req.authorization,
      forwardedFor: req.forwardedFor,
    });
    const status = code === undefined || code === 200 ? '200 OK' : `${code} ${STATUS_CODES[code] ?? ''}`;
    const keepAlive = this.host.keepAliveTimeoutMs;
    const extra: [string, string][] = headers ? Object.entries(headers) : [];
    if (json === undefined) return responseHead(extra, 0, keepAlive, status);
    const { body: out, gzip } = await this.host.encode(json, req.acceptEncoding);
    if (gzip) extra.push(['content-encoding', 'gzip'], ['vary', 'Accept-Encoding']);
    if (typeof out === 'string') return responseHead(extra, Buffer.byteLength(out), keepAlive, status) + out;
    const head = Buffer.from(responseHead(extra, out.length, keepAlive, status), 'latin1');
    return Buffer.concat([head, out]);
  }

  /** Closes idle connections now; busy ones close after their answer. */
  closeIdle(): void {
    this.stopping = true;
    this.answers.flush();
    for (const [socket, state] of this.sockets) if (!state.busy) socket.end();
  }

  closeAll(): void {
    for (const socket of this.sockets.keys()) socket.destroy();
  }

  get open(): number {
    return this.sockets.size;
  }
}
