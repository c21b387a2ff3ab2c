import { ChainError } from '../util/errors.ts';

/**
 * A client of the CometBFT RPC that the node's child listens on (loopback only). The public
 * consensus RPC fronts it, the engine health polls it, and the RPC node's transaction submission goes
 * through it (so CometBFT gossips what chaind admits).
 */
/** CometBFT's RPC could not be reached or refused the call: the RPCs answer -32000 with the reason. */
export class CometRpcError extends ChainError {
  constructor(message: string) {
    super('ENGINE_UNAVAILABLE', message);
  }
}

export interface RawAnswer {
  status: number;
  body: string;
}

export class CometRpcClient {
  readonly url: string;
  private nextId = 1;

  constructor(url: string) {
    this.url = url.replace(/\/$/, '');
  }

  /** A GET of `/<route>?<query>` answered as CometBFT answers it (status and body untouched). */
  async get(pathAndQuery: string, signal?: AbortSignal): Promise<RawAnswer> {
    const res = await fetch(`${this.url}${pathAndQuery}`, { signal });
    return { status: res.status, body: await res.text() };
  }

  /** A JSON-RPC POST body answered as CometBFT answers it. */
  async post(body: string, signal?: AbortSignal): Promise<RawAnswer> {
    const res = await fetch(`${this.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal,
    });
    return { status: res.status, body: await res.text() };
  }

  /** One JSON-RPC call; throws CometRpcError with CometBFT's error text. */
  async call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
    let answer: RawAnswer;
    try {
      answer = await this.post(body, AbortSignal.timeout(timeoutMs));
    } catch (err) {
      throw new CometRpcError(`CometBFT RPC ${method} failed: ${(err as Error).message}`);
    }
    const parsed = JSON.parse(answer.body) as { result?: T; error?: { message: string; data?: string } };
    if (parsed.error)
      throw new CometRpcError(
        `CometBFT RPC ${method}: ${parsed.error.message} ${parsed.error.data ?? ''}`.trim(),
      );
    return parsed.result as T;
  }
}

export interface CometStatus {
  node_info: { id: string; listen_addr: string; network: string; moniker: string };
  sync_info: {
    latest_block_hash: string;
    latest_block_height: string;
    latest_block_time: string;
    catching_up: boolean;
  };
  validator_info: { address: string; voting_power: string };
}

export interface CometBroadcastResult {
  code: number;
  data: string;
  log: string;
  codespace: string;
  hash: string;
}
