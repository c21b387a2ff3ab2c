/**
 * PART A of the legacy surface: address resolution between the EVM and Cosmos formats, explicit
 * association, and lookups between a Cosmos tx and the EVM tx it carries. Every method here is behind
 * the allowlist gate (gate.ts); the dispatcher decodes parameters through the codecs below first, so a
 * malformed argument is -32602 with its reason, and a lookup that finds nothing is -32000.
 */
import { fromBech32, toAccAddress, toChecksumAddress } from '../../crypto/accounts.ts';
import { BECH32_ACCOUNT_PREFIX } from '../../primitives/identity.ts';
import { toHex, utf8 } from '../../primitives/bytes.ts';
import { ChainError } from '../../util/errors.ts';
import { CodecError } from '../codecs/errors.ts';
import { hash32, jsonKind } from '../codecs/hex.ts';
import { p, type ParamCodec } from '../codecs/params.ts';
import { method, type MethodDef, type MethodTable } from '../server/dispatcher.ts';
import type { AssociationSubmission, CosmosTxRecord, LegacyBackend } from './backend.ts';

/** A lookup that found nothing: -32000 with the message (no JSON-RPC code is mapped for it). */
export class LegacyNotFoundError extends ChainError {
  constructor(message: string) {
    super('LEGACY_NOT_FOUND', message);
  }
}

function required<T>(parse: (v: unknown) => T): ParamCodec<T> {
  return { optional: false, parse };
}

function expectString(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new CodecError(`${what} must be a string, got ${jsonKind(v)}`);
  return v;
}

/** A `chain1…` account address (20 bytes). */
export const bech32Address = required((v): Uint8Array => {
  const s = expectString(v, 'bech32 address');
  let bytes: Uint8Array;
  try {
    bytes = fromBech32(s, BECH32_ACCOUNT_PREFIX);
  } catch (err) {
    throw new CodecError(`invalid bech32 address ${JSON.stringify(s)}: ${(err as Error).message}`);
  }
  if (bytes.length !== 20)
    throw new CodecError(
      `invalid bech32 address ${JSON.stringify(s)}: an account address is 20 bytes, this one is ${bytes.length}`,
    );
  return bytes;
});

/** A Cosmos tx hash: 64 hex digits in either case (upper-case as Cosmos prints it), `0x` optional. */
export const cosmosTxHash = required((v): Uint8Array => {
  const s = expectString(v, 'Cosmos tx hash');
  const body = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  if (!/^[0-9a-fA-F]{64}$/.test(body))
    throw new CodecError(
      `invalid Cosmos tx hash ${JSON.stringify(s)}: want 64 hex digits (the SHA-256 of the TxRaw)`,
    );
  return Uint8Array.from(Buffer.from(body, 'hex'));
});

/** r or s of a signature: 0x-hex of at most 32 bytes, left-padded (clients drop leading zeros). */
function signatureScalar(v: unknown, field: string): Uint8Array {
  const s = expectString(v, field);
  if (!/^0[xX][0-9a-fA-F]{1,64}$/.test(s))
    throw new CodecError(`${field}: want 0x-prefixed hex of at most 32 bytes, got ${JSON.stringify(s)}`);
  const out = new Uint8Array(32);
  const hex = s.slice(2).padStart(64, '0');
  out.set(Buffer.from(hex, 'hex'));
  return out;
}

/** v as a number or a hex quantity: 0/1, or 27/28 (Ethereum's personal-sign convention). */
function recoveryId(v: unknown): 0 | 1 {
  let n: number;
  if (typeof v === 'number' && Number.isInteger(v)) n = v;
  else if (typeof v === 'string' && /^0[xX][0-9a-fA-F]{1,2}$/.test(v)) n = parseInt(v.slice(2), 16);
  else if (typeof v === 'string' && /^[0-9]{1,2}$/.test(v)) n = Number(v);
  else throw new CodecError(`v: want 0, 1, 27 or 28 (a number or hex quantity), got ${JSON.stringify(v)}`);
  if (n === 0 || n === 27) return 0;
  if (n === 1 || n === 28) return 1;
  throw new CodecError(`v: want 0, 1, 27 or 28, got ${n}`);
}

/** `{custom_message, r, s, v}`: the signature is over keccak-256 of custom_message's UTF-8 bytes. */
export const associationRequest = required((v): AssociationSubmission => {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new CodecError(`want an object {custom_message, r, s, v}, got ${jsonKind(v)}`);
  const o = v as Record<string, unknown>;
  for (const k of ['custom_message', 'r', 's', 'v'])
    if (!(k in o)) throw new CodecError(`missing field ${k} of {custom_message, r, s, v}`);
  const unknown = Object.keys(o).filter((k) => !['custom_message', 'r', 's', 'v'].includes(k));
  if (unknown.length > 0)
    throw new CodecError(`unknown field ${unknown[0]}: want only {custom_message, r, s, v}`);
  return {
    customMessage: utf8(expectString(o.custom_message, 'custom_message')),
    r: signatureScalar(o.r, 'r'),
    s: signatureScalar(o.s, 's'),
    v: recoveryId(o.v),
  };
});

/** `{hash, height, index, tx}`: jsonpb prints the int64 height as a string, the uint32 index as a number. */
function cosmosTxJson(rec: CosmosTxRecord) {
  return { hash: toHex(rec.hash).toUpperCase(), height: String(rec.height), index: rec.index, tx: rec.tx };
}

/**
 * `ethAliases.chain_getTransactionCount`: node/ passes eth_getTransactionCount's definition, which
 * this folder may not import (rpc/evm is a peer).
 */
export function addressAndTxMethods(
  backend: LegacyBackend,
  ethAliases: { chain_getTransactionCount?: MethodDef } = {},
): MethodTable {
  const { associations } = backend;
  const methods: Record<string, MethodDef> = {
    chain_getChainAddress: method([p.address], (evm) => {
      const cosmos = associations.cosmosAddressOf(evm);
      if (!cosmos)
        throw new LegacyNotFoundError(
          `the EVM address ${toChecksumAddress(evm)} is not associated with a chain address`,
        );
      return toAccAddress(cosmos);
    }),
    chain_getEVMAddress: method([bech32Address], (cosmos) => {
      const evm = associations.evmAddressOf(cosmos);
      if (!evm)
        throw new LegacyNotFoundError(
          `the address ${toAccAddress(cosmos)} is not associated with an EVM address`,
        );
      return toChecksumAddress(evm);
    }),
    chain_getCosmosTx: method([p.hash], (evmHash) => {
      const rec = backend.cosmosTxOfEvmTx(evmHash);
      if (!rec) throw new LegacyNotFoundError(`EVM transaction ${hash32(evmHash)} not found`);
      return cosmosTxJson(rec);
    }),
    chain_getEvmTx: method([cosmosTxHash], (hash) => {
      const upper = toHex(hash).toUpperCase();
      const rec = backend.cosmosTx(hash);
      if (!rec) throw new LegacyNotFoundError(`Cosmos transaction ${upper} not found`);
      if (!rec.evmTxHash)
        throw new LegacyNotFoundError(`Cosmos transaction ${upper} carries no EVM transaction`);
      return hash32(rec.evmTxHash);
    }),
    chain_getTransactionErrorByHash: method([p.hash], (hash) => {
      const failure = backend.txFailure(hash);
      if (!failure) throw new LegacyNotFoundError('receipt not found');
      return failure.message;
    }),
    chain_getVMError: method([p.hash], (hash) => {
      const failure = backend.txFailure(hash);
      if (!failure) throw new LegacyNotFoundError('receipt not found');
      return failure.vmError;
    }),
  };
  const submit = backend.submitAssociation?.bind(backend);
  if (submit) {
    // The hash is 0x + lower-case hex, the form the synthetic views give a Cosmos tx.
    methods.chain_associate = method([associationRequest], async (req) => '0x' + toHex(await submit(req)));
  }
  if (ethAliases.chain_getTransactionCount)
    methods.chain_getTransactionCount = ethAliases.chain_getTransactionCount;
  return methods;
}
