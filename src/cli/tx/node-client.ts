/**
 * The consensus RPC as a transaction sender sees it (CometBFT's JSON-RPC, which chaind serves on
 * `[rpc] laddr` in both engines): the chain ID, an account's number and sequence, Simulate, the sync
 * broadcast and the tx lookup. Every failure to reach or understand the node is a ChainError naming
 * the URL.
 */
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { ChainError } from '../../util/errors.ts';

const ACCOUNT_PATH = '/cosmos.auth.v1beta1.Query/Account';
const SIMULATE_PATH = '/cosmos.tx.v1beta1.Service/Simulate';
const BASE_ACCOUNT_TYPE = '/cosmos.auth.v1beta1.BaseAccount';
/** How long one request may take: a node that does not answer is reported, not waited on forever. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface AccountInfo {
  accountNumber: bigint;
  sequence: bigint;
}

/** CheckTx's or DeliverTx's outcome as the node reports it. */
export interface TxOutcome {
  code: number;
  codespace: string;
  log: string;
}

export interface IncludedTx extends TxOutcome {
  height: number;
  gasUsed: string;
}

export class NodeClient {
  readonly url: string;
  private nextId = 1;

  constructor(url: string) {
    this.url = url;
  }

  private async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new ChainError('RPC_REQUEST_FAILED', `node ${this.url}: ${method}: ${cause}`);
    }
    const text = await res.text();
    let body: { result?: unknown; error?: { code: number; message: string; data?: string } };
    try {
      body = JSON.parse(text);
    } catch {
      throw new ChainError(
        'RPC_REQUEST_FAILED',
        `node ${this.url}: ${method}: HTTP ${res.status}, not a JSON-RPC answer: ${text.slice(0, 200)}`,
      );
    }
    if (body.error) throw new RpcError(method, body.error.message, body.error.data);
    return body.result;
  }

  async chainId(): Promise<string> {
    const r = (await this.call('status', {})) as { node_info?: { network?: string } };
    const id = r?.node_info?.network;
    if (typeof id !== 'string' || id === '')
      throw new ChainError('RPC_REQUEST_FAILED', `node ${this.url}: /status names no chain ID`);
    return id;
  }

  private async query(path: string, data: Uint8Array) {
    const r = (await this.call('abci_query', {
      path,
      data: Buffer.from(data).toString('hex'),
      height: '0',
      prove: false,
    })) as { response: { code: number; log: string; value: string | null; codespace: string } };
    return r.response;
  }

  /** The account's number and sequence; undefined for an address the chain has never seen. */
  async account(address: string): Promise<AccountInfo | undefined> {
    const r = await this.query(ACCOUNT_PATH, QueryAccountRequest.encode({ address }).finish());
    if (r.code !== 0) {
      if (/not found/.test(r.log)) return undefined;
      throw new ChainError('TX_REJECTED', `node ${this.url}: account query for ${address}: ${r.log}`);
    }
    const any = QueryAccountResponse.decode(Buffer.from(r.value ?? '', 'base64')).account;
    if (any?.typeUrl !== BASE_ACCOUNT_TYPE)
      throw new ChainError(
        'TX_REJECTED',
        `node ${this.url}: account ${address} is a ${any?.typeUrl ?? '(none)'}, expected ${BASE_ACCOUNT_TYPE}`,
      );
    const base = BaseAccount.decode(any.value);
    return { accountNumber: base.accountNumber, sequence: base.sequence };
  }

  /** Gas the tx uses, by Simulate on the node's latest state. */
  async simulate(tx: Uint8Array): Promise<bigint> {
    const r = await this.query(SIMULATE_PATH, SimulateRequest.encode({ txBytes: tx }).finish());
    if (r.code !== 0) throw new ChainError('TX_REJECTED', `simulation failed: ${r.log}`);
    const gasUsed = SimulateResponse.decode(Buffer.from(r.value ?? '', 'base64')).gasInfo?.gasUsed;
    if (gasUsed === undefined)
      throw new ChainError('TX_REJECTED', `node ${this.url}: Simulate answered no gas used`);
    return gasUsed;
  }

  /** CheckTx's answer (`broadcast_tx_sync`) and the tx hash in upper-case hex. */
  async broadcastSync(tx: Uint8Array): Promise<TxOutcome & { hash: string }> {
    const r = (await this.call('broadcast_tx_sync', { tx: Buffer.from(tx).toString('base64') })) as {
      code: number;
      codespace: string;
      log: string;
      hash: string;
    };
    return { code: r.code, codespace: r.codespace ?? '', log: r.log ?? '', hash: r.hash };
  }

  /** The tx's block and DeliverTx result; undefined while no block holds it. */
  async tx(hash: string): Promise<IncludedTx | undefined> {
    let r: { height: string; tx_result: { code: number; codespace: string; log: string; gas_used: string } };
    try {
      r = (await this.call('tx', {
        hash: Buffer.from(hash, 'hex').toString('base64'),
        prove: false,
      })) as typeof r;
    } catch (err) {
      if (err instanceof RpcError && /not found/.test(`${err.message} ${err.data ?? ''}`)) return undefined;
      throw err;
    }
    return {
      height: Number(r.height),
      code: r.tx_result.code,
      codespace: r.tx_result.codespace ?? '',
      log: r.tx_result.log ?? '',
      gasUsed: r.tx_result.gas_used,
    };
  }
}

class RpcError extends ChainError {
  readonly data: string | undefined;
  constructor(method: string, message: string, data: string | undefined) {
    super('RPC_REQUEST_FAILED', `${method}: ${message}${data ? `: ${data}` : ''}`);
    this.data = data;
  }
}
