/**
 * The gRPC server on `[grpc] address`: the Cosmos SDK query and service methods of SERVICES over
 * HTTP/2 (grpc-js), plus server reflection. Every handler's failure becomes the call's status: a
 * GrpcStatusError keeps its code and message, anything else is INTERNAL (and logged).
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import type { Logger } from '../../util/logger.ts';
import { ConnectionGate } from '../server/connections.ts';
import { errorMessage } from '../../util/errors.ts';
import { reflectionPackage } from './descriptors.ts';
import { GrpcStatusError } from './errors.ts';
import { handlers } from './handlers.ts';
import { HEIGHT_HEADER } from './height.ts';
import { methodPath, SERVICES, serviceDefinition } from './services.ts';
import type { GrpcDeps } from './types.ts';

export interface GrpcServerOptions {
  host: string;
  port: number;
  logger: Logger;
  /** `[grpc] max-open-connections`: more are closed at once (HTTP/2 has no answer before its preface). */
  maxConnections?: number;
  /** `[grpc] idle-timeout`: a connection with no call for this long is closed (GOAWAY). */
  idleTimeoutMs?: number;
}

export const DEFAULT_GRPC_MAX_CONNECTIONS = 200;
export const DEFAULT_GRPC_IDLE_TIMEOUT_MS = 300_000;

export class GrpcServer {
  private readonly server: Server;
  /** Accepts the TCP connections (counted against the cap) and hands them to grpc-js. */
  private listener: NetServer | undefined;
  private boundPort = 0;
  private readonly deps: GrpcDeps;
  private readonly opts: GrpcServerOptions;

  constructor(deps: GrpcDeps, opts: GrpcServerOptions) {
    this.deps = deps;
    this.opts = opts;
    // grpc-js closes a session idle this long; a socket that never sends the HTTP/2 preface has a
    // session from its first moment, so it is covered too
    this.server = new Server({
      'grpc.max_connection_idle_ms': opts.idleTimeoutMs ?? DEFAULT_GRPC_IDLE_TIMEOUT_MS,
    });
    const byPath = handlers();
    for (const service of SERVICES) {
      const impl: UntypedServiceImplementation = {};
      for (const method of service.methods) {
        const handler = byPath.get(methodPath(service, method))!;
        impl[method.name] = (call: ServerUnaryCall<unknown, unknown>, done: sendUnaryData<unknown>) => {
          const ctx = {
            deps: this.deps,
            heightHeader: call.metadata.get(HEIGHT_HEADER),
            logger: opts.logger,
          };
          handler(call.request, ctx).then(
            ({ response, height }) => {
              if (height !== undefined) {
                // As the SDK's gRPC server: the height a query read, in the response headers.
                const md = new Metadata();
                md.set(HEIGHT_HEADER, String(height));
                call.sendMetadata(md);
              }
              done(null, response);
            },
            (err) => done(this.statusOf(methodPath(service, method), err)),
          );
        };
      }
      this.server.addService(serviceDefinition(service), impl);
    }
    // ReflectionService reads only `fileDescriptorProtos` of proto-loader's PackageDefinition, which
    // is all reflectionPackage() provides, so the nominal type is cast away.
    new ReflectionService(reflectionPackage() as never).addToServer(this.server);
  }

  private statusOf(path: string, err: unknown): { code: status; details: string } {
    if (err instanceof GrpcStatusError) return { code: err.grpcCode, details: err.message };
    this.opts.logger.error({ method: path, err: errorMessage(err) }, 'gRPC handler failed');
    return { code: status.INTERNAL, details: errorMessage(err) };
  }

  async start(): Promise<void> {
    // grpc-js would bind a listener of its own, with no cap on connections: this one admits them
    const injector = this.server.createConnectionInjector(ServerCredentials.createInsecure());
    const gate = new ConnectionGate(
      {
        max: this.opts.maxConnections ?? DEFAULT_GRPC_MAX_CONNECTIONS,
        key: '[grpc] max-open-connections',
      },
      'gRPC server',
      this.opts.logger,
      () => undefined,
    );
    const listener = createNetServer((socket) => {
      if (gate.admit(socket)) injector.injectConnection(socket);
    });
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(this.opts.port, this.opts.host, () => {
        listener.off('error', reject);
        resolve();
      });
    });
    this.listener = listener;
    this.boundPort = (listener.address() as AddressInfo).port;
  }

  /** host:port actually bound (the port chosen when configured as 0). */
  get address(): string {
    const host = this.opts.host.includes(':') ? `[${this.opts.host}]` : this.opts.host;
    return `${host}:${this.boundPort}`;
  }

  /** Lets in-flight calls finish for a moment, then cuts the rest so a stop never hangs. */
  async stop(): Promise<void> {
    const listener = this.listener;
    this.listener = undefined;
    const closed = listener ? new Promise<void>((resolve) => listener.close(() => resolve())) : undefined;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 2000);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    // resolves once the sessions above are gone
    await closed;
  }
}
