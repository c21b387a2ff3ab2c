/**
 * An in-process node whose gRPC server listens on a free port, and grpc-js clients built from the
 * same service definitions the server uses, with calls as promises that keep the response metadata.
 */
import {
  type Client,
  credentials,
  makeGenericClientConstructor,
  Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import type { ChainNode } from '../../../src/node/node.ts';
import { SERVICES, serviceDefinition } from '../../../src/rpc/grpc/services.ts';
import { type LogRecord, memoryLogger } from '../../../src/util/logger.ts';
import { makeHome, startNode } from '../../helpers/node.ts';

export interface GrpcNode {
  node: ChainNode;
  /** host:port of the gRPC server */
  address: string;
  logs: LogRecord[];
  call: Caller;
}

export interface Answer<T> {
  response: T;
  /** The response's initial metadata (headers). */
  headers: Metadata;
}

/** Calls `/<service>/<method>` with a request message and optional request metadata. */
export type Caller = <T = any>(
  service: string,
  method: string,
  request: object,
  metadata?: Record<string, string>,
) => Promise<Answer<T>>;

export function caller(address: string, t: { after(fn: () => unknown): void }): Caller {
  const clients = new Map<string, Client & Record<string, Function>>();
  for (const s of SERVICES) {
    const Ctor = makeGenericClientConstructor(serviceDefinition(s), s.name);
    clients.set(s.name, new Ctor(address, credentials.createInsecure()) as Client & Record<string, Function>);
  }
  t.after(() => {
    for (const c of clients.values()) c.close();
  });
  return (service, method, request, metadata = {}) => {
    const client = clients.get(service);
    if (!client) throw new Error(`no client for ${service}`);
    const md = new Metadata();
    for (const [k, v] of Object.entries(metadata)) md.set(k, v);
    return new Promise((resolve, reject) => {
      let headers = new Metadata();
      const call = client[method](request, md, (err: ServiceError | null, response: any) =>
        err ? reject(err) : resolve({ response, headers }),
      );
      call.on('metadata', (m: Metadata) => (headers = m));
    });
  };
}

export async function startGrpcNode(
  t: { after(fn: () => unknown): void },
  flags: Record<string, string> = {},
): Promise<GrpcNode> {
  const logs: LogRecord[] = [];
  const node = await startNode(makeHome(t), flags, memoryLogger(logs));
  t.after(() => node.stop());
  const grpc = node.modules.grpc;
  if (!grpc) throw new Error('the node did not start its gRPC server');
  return { node, address: grpc.address, logs, call: caller(grpc.address, t) };
}
