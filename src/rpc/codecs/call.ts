/**
 * The call object of eth_call, eth_estimateGas and eth_createAccessList (geth's TransactionArgs).
 * Fields clients send that a call does not use (`type`, blob fee fields with no blobs) are accepted
 * and ignored, and so are unknown ones, as geth does, so any client's request shape works.
 */
import type { AccessListItem, Authorization, CallMessage } from '../../execution/simulation/simulate.ts';
import { CodecError } from './errors.ts';
import { jsonKind, parseAddress, parseData, parseHash, parseQuantity } from './hex.ts';

/** A decoded call object: what the simulation runs, plus the chain id it was meant for. */
export interface CallObject extends CallMessage {
  chainId?: bigint;
}

/** Names the field inside the object in the problem text. */
export function inField<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof CodecError) throw new CodecError(`${name}: ${err.message}`);
    throw err;
  }
}

export function expectObject(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${what}`);
  return v as Record<string, unknown>;
}

const MAX_U64 = 2n ** 64n - 1n;

const present = (o: Record<string, unknown>, k: string) => o[k] !== undefined && o[k] !== null;

export function parseCallObject(v: unknown): CallObject {
  const o = expectObject(v, 'ethapi.TransactionArgs');
  const out: CallObject = {};
  const big = (k: string) => inField(k, () => parseQuantity(o[k], 256));
  const u64 = (k: string) => inField(k, () => parseQuantity(o[k], 64));
  if (present(o, 'from')) out.from = inField('from', () => parseAddress(o.from));
  if (present(o, 'to')) out.to = inField('to', () => parseAddress(o.to));
  if (present(o, 'gas')) out.gas = u64('gas');
  if (present(o, 'gasPrice')) out.gasPrice = big('gasPrice');
  if (present(o, 'maxFeePerGas')) out.maxFeePerGas = big('maxFeePerGas');
  if (present(o, 'maxPriorityFeePerGas')) out.maxPriorityFeePerGas = big('maxPriorityFeePerGas');
  if (present(o, 'value')) out.value = big('value');
  if (present(o, 'nonce')) {
    out.nonce = u64('nonce');
    // EIP-2681: a transaction's nonce is below 2^64 - 1 (the account's nonce could not grow past it)
    if (out.nonce === MAX_U64)
      throw new CodecError(
        'nonce: 0xffffffffffffffff is above the highest nonce a transaction may have, 2^64-2',
      );
  }
  if (present(o, 'chainId')) out.chainId = big('chainId');
  const data = present(o, 'data') ? inField('data', () => parseData(o.data)) : undefined;
  const input = present(o, 'input') ? inField('input', () => parseData(o.input)) : undefined;
  if (data && input && Buffer.compare(data, input) !== 0) {
    throw new CodecError(
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    );
  }
  if (input ?? data) out.data = input ?? data;
  if (present(o, 'accessList')) out.accessList = inField('accessList', () => parseAccessList(o.accessList));
  if (
    out.gasPrice !== undefined &&
    (out.maxFeePerGas !== undefined || out.maxPriorityFeePerGas !== undefined)
  )
    throw new CodecError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  if (
    out.maxFeePerGas !== undefined &&
    out.maxPriorityFeePerGas !== undefined &&
    out.maxFeePerGas < out.maxPriorityFeePerGas
  ) {
    throw new CodecError(
      `maxFeePerGas (${out.maxFeePerGas}) < maxPriorityFeePerGas (${out.maxPriorityFeePerGas})`,
    );
  }
  if (present(o, 'authorizationList')) {
    const list = inField('authorizationList', () => parseAuthorizations(o.authorizationList));
    if (list.length > 0) out.authorizationList = list;
  }
  // Blob calls need a transaction kind this chain does not accept: refuse, never ignore.
  const blobs = o.blobVersionedHashes;
  if (Array.isArray(blobs) ? blobs.length > 0 : present(o, 'blobVersionedHashes'))
    throw new CodecError('blobVersionedHashes: blob transactions are not supported');
  return out;
}

function parseAccessList(v: unknown): AccessListItem[] {
  if (!Array.isArray(v))
    throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type types.AccessList`);
  return v.map((e, i) => {
    const o = inField(`[${i}]`, () => expectObject(e, 'types.AccessTuple'));
    const keys = o.storageKeys ?? [];
    if (!Array.isArray(keys)) throw new CodecError(`[${i}].storageKeys must be an array`);
    return {
      address: inField(`[${i}].address`, () => parseAddress(o.address)),
      storageKeys: keys.map((k, j) => inField(`[${i}].storageKeys[${j}]`, () => parseHash(k))),
    };
  });
}

/** r and s as clients send them: a quantity, or 32 bytes with leading zeros (viem pads absent ones). */
function parseWord(v: unknown): bigint {
  if (typeof v !== 'string' || !/^0[xX][0-9a-fA-F]{1,64}$/.test(v))
    throw new CodecError(`invalid hex number ${JSON.stringify(v)}: want at most 32 bytes of hex`);
  return BigInt(v);
}

function parseAuthorizations(v: unknown): Authorization[] {
  if (!Array.isArray(v))
    throw new CodecError(
      `json: cannot unmarshal ${jsonKind(v)} into Go value of type []types.SetCodeAuthorization`,
    );
  return v.map((e, i) => {
    const o = inField(`[${i}]`, () => expectObject(e, 'types.SetCodeAuthorization'));
    const f = <T>(k: string, parse: (x: unknown) => T) => inField(`[${i}].${k}`, () => parse(o[k]));
    return {
      chainId: f('chainId', (x) => parseQuantity(x, 256)),
      address: f('address', parseAddress),
      nonce: f('nonce', (x) => parseQuantity(x, 64)),
      yParity:
        o.yParity !== undefined
          ? f('yParity', (x) => parseQuantity(x, 8))
          : f('v', (x) => parseQuantity(x, 8)),
      r: f('r', parseWord),
      s: f('s', parseWord),
    };
  });
}
