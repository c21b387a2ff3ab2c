/**
 * The REST API server (`[api] address`, 1317): the Cosmos SDK's grpc-gateway routes over node:http.
 * Answers are gateway JSON; failures are `{code, message, details: []}` with the gRPC code and the
 * HTTP status the gateway derives from it (unknown path 404 code 5, known path with another method
 * 405 code 12, bad input 400 code 3, anything unexpected 500 code 13 and logged).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpRefusal } from '../server/connections.ts';
import { HttpService } from '../server/http-service.ts';
import { errorMessage } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';
import { errorBody, GrpcCode, invalidArgument, RestError } from './errors.ts';
import type { Json } from './json.ts';
import { compile, type CompiledRoute, type RestContext, type RestResult } from './route.ts';
import { NODE_ROUTES } from './routes-node.ts';
import { QUERY_ROUTES } from './routes-query.ts';
import { SLASHING_ROUTES } from './routes-slashing.ts';
import { TX_ROUTES } from './routes-txs.ts';
import type { RestDeps } from './types.ts';

export interface RestServerOptions {
  host: string;
  port: number;
  /** Largest accepted request body; a TxRaw in base64 inside JSON must fit. */
  maxBodyBytes: number;
  /** `[api] max-open-connections` */
  maxOpenConnections?: number;
  logger: Logger;
}

/** The Cosmos SDK's default `[api] max-open-connections`. */
export const DEFAULT_MAX_OPEN_CONNECTIONS = 1000;

const ROUTES: CompiledRoute[] = [...QUERY_ROUTES, ...SLASHING_ROUTES, ...NODE_ROUTES, ...TX_ROUTES].map(
  compile,
);

export class RestServer extends HttpService {
  private readonly o: RestServerOptions;
  private readonly ctx: RestContext;

  constructor(deps: RestDeps, options: RestServerOptions) {
    super(options.host, options.port, options.logger, 'REST API', {
      maxConnections: options.maxOpenConnections ?? DEFAULT_MAX_OPEN_CONNECTIONS,
      maxConnectionsKey: '[api] max-open-connections',
      // the REST error body, RESOURCE_EXHAUSTED
      refusal: (message) =>
        httpRefusal(message, 'application/json', JSON.stringify({ code: 8, message, details: [] })),
    });
    this.o = options;
    this.ctx = { deps, logger: options.logger };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let result: RestResult;
    let status = 200;
    try {
      result = await this.dispatch(req);
    } catch (err) {
      let e: RestError;
      if (err instanceof RestError) e = err;
      else {
        this.o.logger.error({ path: req.url, err: errorMessage(err) }, 'REST route failed');
        e = new RestError(GrpcCode.INTERNAL, errorMessage(err));
      }
      status = e.httpStatus;
      result = { body: errorBody(e) };
    }
    const body = JSON.stringify(result.body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...result.headers,
    });
    res.end(body);
  }

  private async dispatch(req: IncomingMessage): Promise<RestResult> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const matching = ROUTES.map((r) => ({ r, m: r.pattern.exec(url.pathname) })).filter((x) => x.m);
    if (matching.length === 0) throw new RestError(GrpcCode.NOT_FOUND, 'Not Found');
    const hit = matching.find((x) => x.r.method === req.method);
    if (!hit) throw new RestError(GrpcCode.UNIMPLEMENTED, 'Method Not Allowed', 405);
    const path: Record<string, string> = {};
    hit.r.names.forEach((name, i) => {
      try {
        path[name] = decodeURIComponent(hit.m![i + 1]);
      } catch {
        throw invalidArgument(`${name}: malformed percent-encoding in ${JSON.stringify(hit.m![i + 1])}`);
      }
    });
    const body = req.method === 'POST' ? await this.readJson(req) : undefined;
    return hit.r.handle({ path, query: url.searchParams, headers: req.headers, body }, this.ctx);
  }

  private async readJson(req: IncomingMessage): Promise<Json> {
    const limit = this.o.maxBodyBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    // An oversized body is drained, not cut off, so the client still reads the error response.
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size <= limit) chunks.push(c);
    }
    if (size > limit)
      throw new RestError(GrpcCode.RESOURCE_EXHAUSTED, `request body exceeds ${limit} bytes`, 413);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    } catch (err) {
      throw invalidArgument(`the request body is not valid JSON: ${errorMessage(err)}`);
    }
  }
}
