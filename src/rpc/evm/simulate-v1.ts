/**
 * eth_simulateV1 with geth 1.16's semantics: blocks of calls run one after another on one state (each
 * call sees what the calls and blocks before it wrote), each block with its own block and state
 * overrides. geth's rules, kept here in one place:
 *   - a block's number defaults to the previous one + 1 and its time to the previous + 12 s; numbers
 *     and times must increase (-38020, -38021); a gap in numbers is filled with empty blocks; at most
 *     256 blocks past the base block (-38026);
 *   - a call without `gas` gets what is left of its block's gas limit, and a call that does not fit
 *     is refused (-38015); every call's gas is capped by what is left of the gas cap, which the
 *     request's calls share;
 *   - a call that cannot run (nonce, fees, funds, intrinsic gas) fails the whole request with geth's
 *     code; a call that runs and fails is a result (status 0, error code 3 for a revert, -32015 for
 *     another halt);
 *   - without `validation` the base fee is 0 unless overridden and nonces are not checked.
 * The response is bounded by `[evm] max_response_bytes` while it is built, so that a request whose
 * answer could never be sent stops early.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { CallMessage, KeptResult } from '../../execution/simulation/simulate.ts';
import { type CallObject, expectObject, inField, parseCallObject } from '../codecs/call.ts';
import { CodecError } from '../codecs/errors.ts';
import { address, data, hash32, quantity } from '../codecs/hex.ts';
import { EMPTY_UNCLES_HASH } from '../codecs/format.ts';
import {
  type AccountOverride,
  type BlockOverrides,
  parseBlockOverrides,
  parseStateOverrides,
} from '../codecs/overrides.ts';
import { optional, p, type ParamCodec } from '../codecs/params.ts';
import { EMPTY_TRIE_ROOT, rlpEncode } from '../codecs/trie.ts';
import type { BlockRef } from '../codecs/block-ref.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { LimitExceededError, RpcError } from '../server/errors.ts';
import { ChainError } from '../../util/errors.ts';
import type { StatePoint } from './backend.ts';
import type { Resolver } from './resolve.ts';
import { unpackRevert } from './simulate.ts';

/** geth's maxSimulateBlocks */
export const MAX_SIMULATE_BLOCKS = 256;
/** geth's timestampIncrement: seconds between simulated blocks whose time is not given */
const TIMESTAMP_INCREMENT = 12n;

export interface SimulateBlockInput {
  blockOverrides: BlockOverrides;
  stateOverrides: AccountOverride[];
  calls: CallObject[];
}

export interface SimulateRequest {
  blocks: SimulateBlockInput[];
  validation: boolean;
  traceTransfers: boolean;
  returnFullTransactions: boolean;
}

/** The block the simulated blocks build on. */
export interface SimulationBase {
  number: bigint;
  timestamp: bigint;
  hash: Uint8Array;
  gasLimit: bigint;
  baseFee: bigint;
  coinbase: Uint8Array;
  chainId: bigint;
}

/** One state carried from message to message and block to block; `close` gives its VM back. */
export interface MultiBlockSimulation {
  readonly base: SimulationBase;
  /** `[evm] simulation_gas_limit`: what all the request's calls may use together */
  readonly gasCap: bigint;
  startBlock(block: Required<Pick<BlockOverrides, 'number' | 'time'>> & BlockOverrides): Promise<void>;
  /** A simulated block's hash, for BLOCKHASH in the blocks after it. */
  setBlockHash(number: bigint, hash: Uint8Array): void;
  applyStateOverrides(overrides: AccountOverride[]): Promise<void>;
  nonceOf(address: Uint8Array): Promise<bigint>;
  execute(
    call: CallMessage,
    gas: bigint,
    opts: { validation: boolean; traceTransfers: boolean },
  ): Promise<KeptResult>;
  close(): void;
}

export interface MultiBlockSimulationBackend {
  openMultiBlock(point: StatePoint): Promise<MultiBlockSimulation>;
}

class SimulateError extends RpcError {}

const REASON_CODES = {
  nonce_low: 'SIMULATE_NONCE_TOO_LOW',
  nonce_high: 'SIMULATE_NONCE_TOO_HIGH',
  nonce_max: 'SIMULATE_NONCE_MAX',
  base_fee: 'SIMULATE_BASE_FEE_TOO_LOW',
  intrinsic_gas: 'SIMULATE_INTRINSIC_GAS',
  funds: 'SIMULATE_INSUFFICIENT_FUNDS',
  // a tip above the fee cap: geth's invalid-params code
  fee: 'SIMULATE_INVALID_PARAMS',
} as const;

/** EIP-3860's limit on a creation's init code (geth's params.MaxInitCodeSize). */
const MAX_INIT_CODE_SIZE = 49152;

/**
 * A message that could not run, with geth's txValidationError code (else it keeps its own) and its
 * wording, which names the gas the message was given.
 */
function validationError(err: unknown, gas: bigint): unknown {
  if (!(err instanceof ChainError) || err.code !== 'SIMULATION_FAILED') return err;
  const reason = (err as ChainError & { reason?: string }).reason;
  const code = REASON_CODES[reason as keyof typeof REASON_CODES];
  return code ? new SimulateError(code, `err: ${err.message} (supplied gas ${gas})`) : err;
}

const bool = (o: Record<string, unknown>, k: string): boolean => {
  const v = o[k];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new CodecError(`${k}: json: cannot unmarshal into Go value of type bool`);
  return v;
};

export function parseSimulateRequest(v: unknown): SimulateRequest {
  const o = expectObject(v, 'ethapi.simOpts');
  const list = o.blockStateCalls ?? [];
  if (!Array.isArray(list))
    throw new CodecError('blockStateCalls: json: cannot unmarshal into []ethapi.simBlock');
  // refused before any of it is decoded: the count alone makes the request too large
  if (list.length > MAX_SIMULATE_BLOCKS) throw new SimulateError('SIMULATE_CLIENT_LIMIT', 'too many blocks');
  const blocks = list.map((b, i) =>
    inField(`blockStateCalls[${i}]`, () => {
      const bo = expectObject(b, 'ethapi.simBlock');
      const present = (k: string) => bo[k] !== undefined && bo[k] !== null;
      const calls = present('calls') ? bo.calls : [];
      if (!Array.isArray(calls))
        throw new CodecError('calls: json: cannot unmarshal into []ethapi.TransactionArgs');
      return {
        blockOverrides: present('blockOverrides')
          ? inField('blockOverrides', () => parseBlockOverrides(bo.blockOverrides))
          : {},
        stateOverrides: present('stateOverrides')
          ? inField('stateOverrides', () => parseStateOverrides(bo.stateOverrides, true))
          : [],
        calls: calls.map((c, j) => inField(`calls[${j}]`, () => parseCallObject(c))),
      };
    }),
  );
  return {
    blocks,
    validation: bool(o, 'validation'),
    traceTransfers: bool(o, 'traceTransfers'),
    returnFullTransactions: bool(o, 'returnFullTransactions'),
  };
}

type PlannedBlock = SimulateBlockInput & { number: bigint; time: bigint };

/** geth's sanitizeChain: numbers and times filled in and checked, gaps filled with empty blocks. */
export function planBlocks(
  base: { number: bigint; timestamp: bigint },
  blocks: SimulateBlockInput[],
): PlannedBlock[] {
  const out: PlannedBlock[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const b of blocks) {
    const number = b.blockOverrides.number ?? prevNumber + 1n;
    if (number <= prevNumber)
      throw new SimulateError(
        'SIMULATE_BLOCK_NUMBER_ORDER',
        `block numbers must be in order: ${number} <= ${prevNumber}`,
      );
    if (number - base.number > BigInt(MAX_SIMULATE_BLOCKS))
      throw new SimulateError('SIMULATE_CLIENT_LIMIT', 'too many blocks');
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT;
      out.push({ blockOverrides: {}, stateOverrides: [], calls: [], number: n, time: prevTime });
    }
    prevNumber = number;
    const time = b.blockOverrides.time ?? prevTime + TIMESTAMP_INCREMENT;
    if (b.blockOverrides.time !== undefined && time <= prevTime)
      throw new SimulateError(
        'SIMULATE_TIMESTAMP_ORDER',
        `block timestamps must be in order: ${time} <= ${prevTime}`,
      );
    prevTime = time;
    out.push({ ...b, number, time });
  }
  return out;
}

/** Counts the answer's bytes as it is built; past the bound the request stops. */
class ResponseBudget {
  private used = 0;
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }
  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.max)
      throw new LimitExceededError(
        `result too large: the simulated blocks exceed max_response_bytes = ${this.max} bytes ([evm] max_response_bytes)`,
      );
  }
}

/** A block's fixed fields, a call result's and a log's, as JSON text (an upper bound is enough). */
const BLOCK_BYTES = 2000;
const CALL_BYTES = 200;
const LOG_BYTES = 600;

const ZERO32 = new Uint8Array(32);
const ZERO_ADDRESS = new Uint8Array(20);
const EMPTY_BLOOM = '0x' + '00'.repeat(256);
const EMPTY_REQUESTS_HASH = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The unsigned dynamic-fee transaction geth builds from a call (its hash names the call's logs). */
function txOf(
  c: CallMessage,
  from: Uint8Array,
  nonce: bigint,
  gas: bigint,
  chainId: bigint,
  baseFee: bigint,
) {
  const feeCap = c.gasPrice ?? c.maxFeePerGas ?? 0n;
  const tip = c.gasPrice ?? c.maxPriorityFeePerGas ?? 0n;
  const accessList = (c.accessList ?? []).map((e) => [e.address, e.storageKeys]);
  const fields = [
    chainId,
    nonce,
    tip,
    feeCap,
    gas,
    c.to ?? new Uint8Array(0),
    c.value ?? 0n,
    c.data ?? new Uint8Array(0),
    accessList,
    0n,
    0n,
    0n,
  ];
  const rlp = rlpEncode(fields);
  const raw = new Uint8Array(rlp.length + 1);
  raw[0] = 2;
  raw.set(rlp, 1);
  const gasPrice = feeCap === 0n && tip === 0n ? 0n : tip + baseFee < feeCap ? tip + baseFee : feeCap;
  return {
    hash: keccak_256(raw),
    from,
    nonce,
    gas,
    feeCap,
    tip,
    gasPrice,
    to: c.to,
    value: c.value ?? 0n,
    input: c.data ?? new Uint8Array(0),
    accessList: c.accessList ?? [],
  };
}

function callError(r: KeptResult): Record<string, unknown> | undefined {
  if (r.status === 'success') return undefined;
  if (r.status === 'revert') {
    const reason = unpackRevert(r.returnData);
    return {
      message: reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
      code: 3,
      data: data(r.returnData),
    };
  }
  return { message: r.error, code: -32015 };
}

export async function simulateV1(
  backend: MultiBlockSimulationBackend,
  point: StatePoint,
  req: SimulateRequest,
  maxResponseBytes: number,
): Promise<unknown[]> {
  if (req.blocks.length === 0) throw new SimulateError('SIMULATE_INVALID_PARAMS', 'empty input');
  const sim = await backend.openMultiBlock(point);
  try {
    const base = sim.base;
    const planned = planBlocks(base, req.blocks);
    const budget = new ResponseBudget(maxResponseBytes);
    const out: unknown[] = [];
    let gasLeft = sim.gasCap;
    let parentHash = base.hash;
    // as geth, a block takes its gas limit and fee recipient from its parent unless overridden
    let gasLimit = base.gasLimit;
    let coinbase = base.coinbase;
    for (const b of planned) {
      budget.charge(BLOCK_BYTES);
      const o = b.blockOverrides;
      // without validation a block pays no base fee unless one is given (geth: an EVM edge case otherwise)
      const baseFee = o.baseFee ?? (req.validation ? base.baseFee : 0n);
      await sim.startBlock({
        ...o,
        number: b.number,
        time: b.time,
        baseFee,
        gasLimit: o.gasLimit ?? gasLimit,
        coinbase: o.coinbase ?? coinbase,
      });
      await sim.applyStateOverrides(b.stateOverrides);
      gasLimit = o.gasLimit ?? gasLimit;
      coinbase = o.coinbase ?? coinbase;
      let blockGas = 0n;
      const calls: Record<string, unknown>[] = [];
      const txs: ReturnType<typeof txOf>[] = [];
      const logs: { r: KeptResult; i: number }[] = [];
      for (const [i, c] of b.calls.entries()) {
        const from = c.from ?? ZERO_ADDRESS;
        const nonce = c.nonce ?? (await sim.nonceOf(from));
        let gas = c.gas ?? gasLimit - blockGas;
        if (blockGas + gas > gasLimit)
          throw new SimulateError(
            'SIMULATE_BLOCK_GAS_LIMIT',
            `block gas limit reached: ${blockGas} >= ${gasLimit}`,
          );
        if (sim.gasCap > 0n && gas > gasLeft) {
          if (gasLeft === 0n)
            throw new SimulateError(
              'SIMULATE_BLOCK_GAS_LIMIT',
              `gas limit reached: the calls used all of simulation_gas_limit = ${sim.gasCap} ([evm] simulation_gas_limit)`,
            );
          gas = gasLeft;
        }
        const initCode = c.to ? 0 : (c.data?.length ?? 0);
        if (initCode > MAX_INIT_CODE_SIZE)
          throw new SimulateError(
            'SIMULATE_INIT_CODE_SIZE',
            `max initcode size exceeded: code size ${initCode} limit ${MAX_INIT_CODE_SIZE}`,
          );
        let r: KeptResult;
        try {
          r = await sim.execute({ ...c, nonce }, gas, {
            validation: req.validation,
            traceTransfers: req.traceTransfers,
          });
        } catch (err) {
          throw validationError(err, gas);
        }
        blockGas += r.gasUsed;
        if (sim.gasCap > 0n) gasLeft -= r.gasUsed;
        txs.push(txOf(c, from, nonce, gas, base.chainId, baseFee));
        budget.charge(CALL_BYTES + 2 * (r.status === 'failure' ? 0 : r.returnData.length));
        for (const l of r.logs) budget.charge(LOG_BYTES + 2 * l.data.length);
        logs.push({ r, i });
      }
      const header = {
        parentHash,
        number: b.number,
        timestamp: b.time,
        gasLimit,
        gasUsed: blockGas,
        baseFee,
        coinbase,
        prevRandao: o.prevRandao ?? ZERO32,
      };
      // not geth's header hash (that commits to Ethereum state and receipt tries this chain does not
      // keep): a hash of the header fields and the calls, so that each simulated block names itself
      const hash = keccak_256(
        rlpEncode([
          header.parentHash,
          header.number,
          header.timestamp,
          header.gasLimit,
          header.gasUsed,
          header.baseFee,
          header.coinbase,
          header.prevRandao,
          txs.map((t) => t.hash),
        ]),
      );
      let logIndex = 0;
      for (const { r, i } of logs) {
        const tx = txs[i]!;
        const err = callError(r);
        calls.push({
          // geth's ExecutionResult.Return(): nothing once the call failed (a revert's bytes are the error's data)
          returnData: r.status === 'success' ? data(r.returnData) : '0x',
          logs: r.logs.map((l) => ({
            address: address(l.address),
            topics: l.topics.map(hash32),
            data: data(l.data),
            blockNumber: quantity(b.number),
            transactionHash: hash32(tx.hash),
            transactionIndex: quantity(i),
            blockHash: hash32(hash),
            logIndex: quantity(logIndex++),
            removed: false,
          })),
          gasUsed: quantity(r.gasUsed),
          maxUsedGas: quantity(r.maxUsedGas),
          status: r.status === 'success' ? '0x1' : '0x0',
          ...(err ? { error: err } : {}),
        });
      }
      out.push({
        baseFeePerGas: quantity(baseFee),
        blobGasUsed: '0x0',
        calls,
        difficulty: '0x0',
        excessBlobGas: '0x0',
        extraData: '0x',
        gasLimit: quantity(gasLimit),
        gasUsed: quantity(blockGas),
        hash: hash32(hash),
        logsBloom: EMPTY_BLOOM,
        miner: address(coinbase),
        mixHash: hash32(header.prevRandao),
        nonce: '0x0000000000000000',
        number: quantity(b.number),
        parentBeaconBlockRoot: hash32(ZERO32),
        parentHash: hash32(parentHash),
        receiptsRoot: hash32(EMPTY_TRIE_ROOT),
        requestsHash: EMPTY_REQUESTS_HASH,
        sha3Uncles: EMPTY_UNCLES_HASH,
        size: '0x0',
        stateRoot: hash32(ZERO32),
        timestamp: quantity(b.time),
        transactions: txs.map((t, i) =>
          req.returnFullTransactions ? formatTx(t, hash, b.number, i, base.chainId) : hash32(t.hash),
        ),
        transactionsRoot: hash32(EMPTY_TRIE_ROOT),
        uncles: [],
        withdrawals: [],
        withdrawalsRoot: hash32(EMPTY_TRIE_ROOT),
      });
      parentHash = hash;
      sim.setBlockHash(b.number, hash);
    }
    return out;
  } finally {
    sim.close();
  }
}

function formatTx(
  t: ReturnType<typeof txOf>,
  blockHash: Uint8Array,
  number: bigint,
  index: number,
  chainId: bigint,
) {
  return {
    blockHash: hash32(blockHash),
    blockNumber: quantity(number),
    from: address(t.from),
    gas: quantity(t.gas),
    gasPrice: quantity(t.gasPrice),
    maxFeePerGas: quantity(t.feeCap),
    maxPriorityFeePerGas: quantity(t.tip),
    hash: hash32(t.hash),
    input: data(t.input),
    nonce: quantity(t.nonce),
    to: t.to ? address(t.to) : null,
    transactionIndex: quantity(index),
    value: quantity(t.value),
    type: '0x2',
    accessList: t.accessList.map((e) => ({
      address: address(e.address),
      storageKeys: e.storageKeys.map(hash32),
    })),
    chainId: quantity(chainId),
    v: '0x0',
    r: '0x0',
    s: '0x0',
    yParity: '0x0',
  };
}

const request: ParamCodec<SimulateRequest> = { optional: false, parse: parseSimulateRequest };
const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };

export function simulateV1Methods(
  backend: MultiBlockSimulationBackend,
  resolve: Resolver,
  maxResponseBytes = Infinity,
): MethodTable {
  return {
    eth_simulateV1: method([request, optional(p.blockRef)], (req, ref) =>
      simulateV1(backend, resolve.statePoint(ref ?? LATEST), req, maxResponseBytes),
    ),
  };
}
