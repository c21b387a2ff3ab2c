/** The eth_, net_ and web3_ method table served over HTTP (and, later, WebSocket). */
import type { MethodTable } from '../server/dispatcher.ts';
import type { EvmBackend } from './backend.ts';
import { blockMethods } from './blocks.ts';
import { chainInfoMethods } from './chain-info.ts';
import { logMethods } from './logs.ts';
import { Resolver } from './resolve.ts';
import { stateMethods } from './state.ts';
import { txMethods } from './txs.ts';

export type {
  ChainReader,
  EvmBackend,
  EvmRpcOptions,
  LogMatch,
  LogSearch,
  StateAt,
  TxPool,
} from './backend.ts';

export function evmMethods(backend: EvmBackend): MethodTable {
  const resolve = new Resolver(backend.chain);
  return {
    ...chainInfoMethods(backend, resolve),
    ...stateMethods(backend, resolve),
    ...blockMethods(backend, resolve),
    ...txMethods(backend, resolve),
    ...logMethods(backend, resolve),
  };
}
