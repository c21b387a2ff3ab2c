/**
 * The ABCI++ socket server CometBFT connects to. CometBFT opens one connection per concern
 * (consensus, mempool, query, snapshot) and pipelines requests on each, expecting the answers in
 * request order; a Flush asks for everything written so far. So each connection runs its requests
 * one at a time, in order, while the connections themselves proceed independently.
 *
 * A handler that throws answers a ResponseException: CometBFT treats that as a fatal application
 * error (it stops), which is right for consensus-critical calls; handlers of calls that may fail
 * harmlessly (CheckTx, Query) return error codes instead of throwing.
 */
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type * as T from 'cosmjs-types/tendermint/abci/types';
import { errorMessage } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';
import { encodeResponse, FrameReader, Request, type Response } from './wire.ts';

type Res<K extends keyof T.Response> = NonNullable<T.Response[K]>;

/** The application side of ABCI++ v0.38: one method per request, echo and flush excluded. */
export interface AbciApplication {
  info(req: T.RequestInfo): Promise<Res<'info'>>;
  initChain(req: T.RequestInitChain): Promise<Res<'initChain'>>;
  query(req: T.RequestQuery): Promise<Res<'query'>>;
  checkTx(req: T.RequestCheckTx): Promise<Res<'checkTx'>>;
  prepareProposal(req: T.RequestPrepareProposal): Promise<Res<'prepareProposal'>>;
  processProposal(req: T.RequestProcessProposal): Promise<Res<'processProposal'>>;
  finalizeBlock(req: T.RequestFinalizeBlock): Promise<Res<'finalizeBlock'>>;
  commit(req: T.RequestCommit): Promise<Res<'commit'>>;
  extendVote(req: T.RequestExtendVote): Promise<Res<'extendVote'>>;
  verifyVoteExtension(req: T.RequestVerifyVoteExtension): Promise<Res<'verifyVoteExtension'>>;
  listSnapshots(req: T.RequestListSnapshots): Promise<Res<'listSnapshots'>>;
  offerSnapshot(req: T.RequestOfferSnapshot): Promise<Res<'offerSnapshot'>>;
  loadSnapshotChunk(req: T.RequestLoadSnapshotChunk): Promise<Res<'loadSnapshotChunk'>>;
  applySnapshotChunk(req: T.RequestApplySnapshotChunk): Promise<Res<'applySnapshotChunk'>>;
}

/** Request oneof field → the application method that answers it (same name in Response). */
const METHODS = [
  'info',
  'initChain',
  'query',
  'checkTx',
  'prepareProposal',
  'processProposal',
  'finalizeBlock',
  'commit',
  'extendVote',
  'verifyVoteExtension',
  'listSnapshots',
  'offerSnapshot',
  'loadSnapshotChunk',
  'applySnapshotChunk',
] as const satisfies readonly (keyof AbciApplication & keyof T.Request & keyof T.Response)[];

/** Answers one decoded request (exported for tests that drive the application without a socket). */
export async function answer(app: AbciApplication, req: T.Request): Promise<Response> {
  if (req.echo) return { echo: { message: req.echo.message } };
  if (req.flush) return { flush: {} };
  for (const m of METHODS) {
    const body = req[m];
    if (body !== undefined) {
      const res = await (app[m] as (r: typeof body) => Promise<unknown>).call(app, body);
      return { [m]: res } as Response;
    }
  }
  return { exception: { error: 'unknown ABCI request' } };
}

export class AbciServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly log: Logger;
  private readonly path: string;
  private readonly app: AbciApplication;

  constructor(path: string, app: AbciApplication, logger: Logger) {
    this.path = path;
    this.app = app;
    this.log = logger.child({ module: 'abci' });
    this.server = createServer((socket) => this.serve(socket));
  }

  async listen(): Promise<void> {
    // a socket file left by a killed process would make listen fail with EADDRINUSE; the data
    // directory lock proves no other chaind owns it
    if (existsSync(this.path)) rmSync(this.path);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.path, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    chmodSync(this.path, 0o600);
    this.log.info({ path: this.path }, 'ABCI server listening');
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.path, { force: true });
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    const frames = new FrameReader();
    let queue: Promise<void> = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      let bodies: Uint8Array[];
      try {
        bodies = frames.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
      } catch (err) {
        this.log.error({ err: errorMessage(err) }, 'ABCI connection sent a malformed message; closing it');
        socket.destroy();
        return;
      }
      for (const body of bodies) queue = queue.then(() => this.handle(socket, body));
    });
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
  }

  private async handle(socket: Socket, body: Uint8Array): Promise<void> {
    if (socket.destroyed) return;
    let res: Response;
    let req: T.Request | undefined;
    try {
      req = Request.decode(body);
      res = await answer(this.app, req);
    } catch (err) {
      const what = req ? (METHODS.find((m) => req![m] !== undefined) ?? 'request') : 'request';
      this.log.error({ err: errorMessage(err), request: what }, 'ABCI request failed');
      res = { exception: { error: `${what}: ${errorMessage(err)}` } };
    }
    if (!socket.destroyed) socket.write(encodeResponse(res));
  }
}
