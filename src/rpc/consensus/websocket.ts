/**
 * The consensus RPC's `/websocket`, as CometBFT serves it: JSON-RPC 2.0 over a WebSocket, every
 * route callable as over HTTP, plus `subscribe` / `unsubscribe` / `unsubscribe_all` (params
 * `{"query": …}`, CometBFT's query language). After `subscribe` answers `{}`, each matching event
 * comes with the subscribe request's id as
 *   {"query": q, "data": {"type": "tendermint/event/NewBlock", "value": …}, "events": {"tm.event": [...], …}}
 * for `NewBlock` ({block, block_id, result_finalize_block}), `NewBlockHeader` ({header}) and `Tx`
 * ({TxResult: {height, index, tx, result}}, events: tm.event, tx.hash, tx.height and every `type.key`
 * of the tx's events). Each committed height is published once, in order, after the watermark covers it.
 *
 * In network mode the socket is relayed to CometBFT's own `/websocket`, which publishes the same events
 * from the FinalizeBlock answers of this node's application.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { txHash } from '../../codec/index.ts';
import { errorMessage } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';
import { eventMapMatches, parseTxQuery, type TxCondition, TxQueryError } from '../codecs/tx-search.ts';
import {
  base64,
  blockIdJson,
  blockJson,
  headerJson,
  hexUpper,
  int64,
  type Json,
  txResultJson,
} from './encoding.ts';
import type { ConsensusRpcDeps, TxResultView } from './types.ts';

/** CometBFT's default `max_subscriptions_per_client`. */
export const MAX_SUBSCRIPTIONS_PER_CLIENT = 5;
/** A client whose unsent notifications exceed this is dropped (it is not reading them). */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Heights published per commit at most, so a jump (a restore, a catch-up) cannot flood clients. */
const MAX_HEIGHTS_PER_COMMIT = 100;
/** Requests a relayed socket may queue while the engine's socket opens. */
const MAX_RELAY_QUEUE = 100;
const PING_INTERVAL_MS = 30_000;

type Id = string | number | null;
type Envelope = {
  jsonrpc: '2.0';
  id: Id;
  result?: Json;
  error?: { code: number; message: string; data: string };
};

export interface ConsensusWebsocketOptions {
  deps: ConsensusRpcDeps;
  /** Largest message a client may send. */
  maxMessageBytes: number;
  /** Answers one JSON-RPC request as the HTTP POST form does. */
  call(request: unknown): Promise<Envelope>;
  logger: Logger;
}

interface Subscription {
  id: Id;
  conditions: TxCondition[];
}

interface Client {
  ws: WebSocket;
  subs: Map<string, Subscription>;
  alive: boolean;
}

/** One published event: its composite-key map and, built only when someone matches, its data. */
interface Published {
  events: Record<string, string[]>;
  data: () => Json;
}

const failure = (id: Id, code: number, message: string, data: string): Envelope => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, data },
});

export class ConsensusWebsocket {
  private readonly o: ConsensusWebsocketOptions;
  private readonly wss: WebSocketServer;
  private readonly clients = new Set<Client>();
  /** Network mode's relayed sockets (client side), closed with the server. */
  private readonly relayed = new Set<WebSocket>();
  private readonly offCommit: () => void;
  private readonly pinger: NodeJS.Timeout;
  private published: number;

  constructor(o: ConsensusWebsocketOptions) {
    this.o = o;
    this.wss = new WebSocketServer({ noServer: true, maxPayload: o.maxMessageBytes });
    this.published = o.deps.chain.latestHeight();
    this.offCommit = o.deps.upstream ? () => undefined : o.deps.onCommit((h) => this.publishUpTo(h));
    this.pinger = setInterval(() => this.ping(), PING_INTERVAL_MS).unref();
  }

  /** node:http's `upgrade`: `/websocket` becomes a client (or a relay in network mode), anything else 404. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/websocket') {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    // the HTTP idle timeout no longer applies: pings find dead peers
    if ('setTimeout' in socket) (socket as { setTimeout(ms: number): void }).setTimeout(0);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const upstream = this.o.deps.upstream;
      if (upstream) this.relay(ws, upstream.websocketUrl);
      else this.serve(ws);
    });
  }

  close(): void {
    this.offCommit();
    clearInterval(this.pinger);
    for (const c of this.clients) c.ws.terminate();
    for (const ws of this.relayed) ws.terminate();
    this.clients.clear();
    this.relayed.clear();
    this.wss.close();
  }

  private serve(ws: WebSocket): void {
    const client: Client = { ws, subs: new Map(), alive: true };
    this.clients.add(client);
    ws.on('pong', () => (client.alive = true));
    ws.on('close', () => this.clients.delete(client));
    ws.on('error', () => ws.terminate());
    ws.on('message', (data: RawData) => {
      this.message(client, data.toString()).catch((err) => {
        this.o.logger.error({ err: errorMessage(err) }, 'consensus RPC websocket request failed');
        this.send(client, failure(null, -32603, 'Internal error', errorMessage(err)));
      });
    });
  }

  private async message(client: Client, text: string): Promise<void> {
    let req: unknown;
    try {
      req = JSON.parse(text);
    } catch (err) {
      return this.send(client, failure(null, -32700, 'Parse error', errorMessage(err)));
    }
    const r = (typeof req === 'object' && req !== null && !Array.isArray(req) ? req : {}) as Record<
      string,
      unknown
    >;
    const id = (typeof r.id === 'string' || typeof r.id === 'number' ? r.id : null) as Id;
    if (r.method === 'subscribe' || r.method === 'unsubscribe' || r.method === 'unsubscribe_all') {
      if (r.jsonrpc !== '2.0')
        return this.send(client, failure(id, -32600, 'Invalid Request', 'jsonrpc must be "2.0"'));
      return this.send(client, this.subscription(client, id, r.method, r.params));
    }
    this.send(client, await this.o.call(req));
  }

  private subscription(client: Client, id: Id, method: string, params: unknown): Envelope {
    const ok: Envelope = { jsonrpc: '2.0', id, result: {} };
    if (method === 'unsubscribe_all') {
      if (client.subs.size === 0) return failure(id, -32603, 'Internal error', 'subscription not found');
      client.subs.clear();
      return ok;
    }
    const query = Array.isArray(params) ? params[0] : (params as { query?: unknown } | undefined)?.query;
    if (typeof query !== 'string') return failure(id, -32602, 'Invalid params', 'query is required');
    if (method === 'unsubscribe') {
      if (!client.subs.delete(query)) return failure(id, -32603, 'Internal error', 'subscription not found');
      return ok;
    }
    if (client.subs.has(query)) return failure(id, -32603, 'Internal error', 'already subscribed');
    if (client.subs.size >= MAX_SUBSCRIPTIONS_PER_CLIENT)
      return failure(
        id,
        -32603,
        'Internal error',
        `max_subscriptions_per_client ${MAX_SUBSCRIPTIONS_PER_CLIENT} reached`,
      );
    let conditions: TxCondition[];
    try {
      conditions = parseTxQuery(query);
    } catch (err) {
      if (!(err instanceof TxQueryError)) throw err;
      return failure(id, -32602, 'Invalid params', `failed to parse query: ${err.message}`);
    }
    client.subs.set(query, { id, conditions });
    return ok;
  }

  private send(client: Client, env: Envelope): void {
    if (client.ws.readyState !== WebSocket.OPEN) return;
    if (client.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.o.logger.warn(
        { buffered: client.ws.bufferedAmount },
        'websocket client dropped: not reading its events',
      );
      client.ws.terminate();
      return;
    }
    client.ws.send(JSON.stringify(env));
  }

  private publishUpTo(height: number): void {
    const from = Math.max(this.published + 1, height - MAX_HEIGHTS_PER_COMMIT + 1);
    this.published = Math.max(this.published, height);
    if (![...this.clients].some((c) => c.subs.size > 0)) return;
    for (let h = from; h <= height; h++) for (const e of this.eventsOf(h)) this.publish(e);
  }

  private publish(e: Published): void {
    let data: Json | undefined;
    for (const client of this.clients)
      for (const [query, sub] of client.subs) {
        if (!eventMapMatches(sub.conditions, e.events)) continue;
        data ??= e.data();
        this.send(client, { jsonrpc: '2.0', id: sub.id, result: { query, data, events: e.events } });
      }
  }

  /** The events CometBFT publishes for a committed height, in its order: NewBlock, NewBlockHeader, Txs. */
  private eventsOf(height: number): Published[] {
    const chain = this.o.deps.chain;
    const block = chain.block(height);
    const results = chain.txResults(height);
    if (!block || !results) return [];
    const out: Published[] = [
      {
        events: { 'tm.event': ['NewBlock'] },
        data: () => ({
          type: 'tendermint/event/NewBlock',
          value: {
            block: blockJson(block),
            block_id: blockIdJson(block.blockId),
            result_finalize_block: finalizeBlockJson(results, chain.appHashAfter(height)),
          },
        }),
      },
      {
        events: { 'tm.event': ['NewBlockHeader'] },
        data: () => ({
          type: 'tendermint/event/NewBlockHeader',
          value: { header: headerJson(block.header) },
        }),
      },
    ];
    block.txs.forEach((tx, index) => {
      const result = results[index];
      if (result) out.push(txEvent(height, index, tx, result));
    });
    return out;
  }

  /** Network mode: the client's socket and one to CometBFT's `/websocket`, each message passed on as is. */
  private relay(client: WebSocket, url: string): void {
    const upstream = new WebSocket(url, { maxPayload: this.o.maxMessageBytes });
    this.relayed.add(client);
    const queue: { data: RawData; binary: boolean }[] = [];
    const closeBoth = () => {
      client.close();
      upstream.close();
    };
    client.on('message', (data: RawData, binary: boolean) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
      else if (queue.length < MAX_RELAY_QUEUE) queue.push({ data, binary });
      else closeBoth();
    });
    upstream.on('open', () => {
      for (const m of queue.splice(0)) upstream.send(m.data, { binary: m.binary });
    });
    upstream.on('message', (data: RawData, binary: boolean) => {
      if (client.bufferedAmount > MAX_BUFFERED_BYTES) return closeBoth();
      client.send(data, { binary });
    });
    upstream.on('error', (err) => {
      this.o.logger.warn({ err: errorMessage(err) }, "the consensus engine's websocket failed");
      client.close(1011, "the consensus engine's websocket is not reachable");
    });
    upstream.on('close', () => client.close());
    client.on('close', () => {
      this.relayed.delete(client);
      upstream.close();
    });
    client.on('error', () => closeBoth());
  }

  private ping(): void {
    for (const c of this.clients) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }
}

function finalizeBlockJson(results: TxResultView[], appHash: Uint8Array | undefined): Json {
  return {
    events: [],
    tx_results: results.map(txResultJson),
    validator_updates: [],
    consensus_param_updates: null,
    app_hash: appHash ? base64(appHash) : '',
  };
}

function txEvent(height: number, index: number, tx: Uint8Array, result: TxResultView): Published {
  const events: Record<string, string[]> = {
    'tm.event': ['Tx'],
    'tx.hash': [hexUpper(txHash(tx))],
    'tx.height': [String(height)],
  };
  for (const e of result.events)
    for (const a of e.attributes) (events[`${e.type}.${a.key}`] ??= []).push(a.value);
  return {
    events,
    data: () => ({
      type: 'tendermint/event/Tx',
      value: { TxResult: { height: int64(height), index, tx: base64(tx), result: txResultJson(result) } },
    }),
  };
}
