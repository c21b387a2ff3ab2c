/**
 * The dev accounts as geth's unlocked accounts and anvil's serve them: listed by eth_accounts, and
 * signing for eth_sendTransaction, eth_signTransaction, eth_sign, personal_sign and
 * eth_signTypedData_v4. A transaction's missing fields are filled as geth fills them (the pending
 * nonce, an estimate of its gas at `pending`, EIP-1559 fees of the suggested tip plus twice the next
 * base fee, or the suggested gas price for a legacy or access-list tx). An impersonated address
 * (impersonation.ts) sends without a key; any other address this node does not sign for is geth's
 * `unknown account`.
 */
import type { UnsignedTx } from '../../execution/signing.ts';
import { ChainError } from '../../util/errors.ts';
import { type CallObject, expectObject, inField, parseCallObject } from '../codecs/call.ts';
import { CodecError } from '../codecs/errors.ts';
import { address, data } from '../codecs/hex.ts';
import { p, type ParamCodec } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { InvalidParamsError } from '../server/errors.ts';
import type { EvmBackend } from '../evm/backend.ts';
import { GasPriceOracle } from '../evm/gas-price-oracle.ts';
import { outcome, type SimulationBackend } from '../evm/simulate.ts';
import type { DevNode, DevSigner } from './backend.ts';
import { json } from './params.ts';

/** A transaction request: the call object plus the `type` a call ignores. */
interface TxRequest extends CallObject {
  type?: 0 | 1 | 2;
}

const txRequest: ParamCodec<TxRequest> = {
  optional: false,
  parse: (v) => {
    const out: TxRequest = parseCallObject(v);
    const t = expectObject(v, 'ethapi.TransactionArgs').type;
    if (t !== undefined && t !== null) {
      out.type = inField('type', () => {
        const n = typeof t === 'string' ? Number(t) : t;
        if (n !== 0 && n !== 1 && n !== 2)
          throw new CodecError(
            `transaction type ${String(t)} cannot be signed here (types 0, 1 and 2 can); sign it and send it with eth_sendRawTransaction`,
          );
        return n;
      });
    }
    if (out.authorizationList)
      throw new CodecError(
        'authorizationList: set-code (type 4) transactions cannot be signed here; sign it and send it with eth_sendRawTransaction',
      );
    return out;
  },
};

export function accountMethods(
  dev: DevNode,
  { chain, pool }: EvmBackend,
  simulation: SimulationBackend,
): MethodTable {
  const oracle = new GasPriceOracle(chain);
  const signerOf = (from: Uint8Array | undefined): DevSigner => {
    if (!from) throw new InvalidParamsError('from: the sending account is required');
    const signer = dev.accounts.signer(from);
    if (!signer) throw new ChainError('DEV_UNKNOWN_ACCOUNT', 'unknown account');
    return signer;
  };

  const fill = async (req: TxRequest): Promise<UnsignedTx> => {
    if (req.chainId !== undefined && req.chainId !== chain.chainId)
      throw new InvalidParamsError(
        `chainId does not match node's (have=${req.chainId}, want=${chain.chainId})`,
      );
    const from = req.from!;
    const type = req.type ?? (req.gasPrice !== undefined ? (req.accessList ? 1 : 0) : 2);
    const nonce = req.nonce ?? (await pool.pendingNonce(from));
    const fees: Pick<UnsignedTx, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'> = {};
    if (type === 2) {
      if (req.gasPrice !== undefined)
        throw new InvalidParamsError(
          'gasPrice: an EIP-1559 (type 2) transaction takes maxFeePerGas and maxPriorityFeePerGas',
        );
      const tip = req.maxPriorityFeePerGas ?? (await oracle.suggestTip());
      const maxFee = req.maxFeePerGas ?? tip + 2n * (await chain.nextBaseFee());
      if (maxFee < tip)
        throw new InvalidParamsError(`maxFeePerGas (${maxFee}) < maxPriorityFeePerGas (${tip})`);
      fees.maxFeePerGas = maxFee;
      fees.maxPriorityFeePerGas = tip;
    } else {
      if (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined)
        throw new InvalidParamsError(`maxFeePerGas: a type ${type} transaction takes gasPrice`);
      fees.gasPrice = req.gasPrice ?? (await oracle.suggestGasPrice());
    }
    let gas = req.gas;
    if (gas === undefined) {
      const estimate = await simulation.estimateGas('pending', { ...req, nonce, ...fees });
      outcome(estimate);
      gas = (estimate as { gas: bigint }).gas;
    }
    return {
      type,
      chainId: chain.chainId,
      nonce,
      gasLimit: gas,
      ...(req.to ? { to: req.to } : {}),
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(0),
      ...fees,
      ...(type !== 0 ? { accessList: req.accessList ?? [] } : {}),
    };
  };

  const typedData = (v: unknown): unknown => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      throw new InvalidParamsError('typed data: not valid JSON');
    }
  };
  const signTyped = (signer: DevSigner, v: unknown) => {
    try {
      return data(signer.signTypedData(typedData(v)));
    } catch (err) {
      if (err instanceof ChainError) throw err;
      throw new InvalidParamsError(`typed data: ${(err as Error).message}`);
    }
  };

  return {
    eth_accounts: method([], () => dev.accounts.list().map(address)),
    eth_sendTransaction: method([txRequest], async (req) => {
      const from = req.from;
      if (from && !dev.accounts.signer(from) && dev.impersonation.has(from))
        return data(await dev.impersonation.send(await fill(req), from));
      const signer = signerOf(from);
      return data(await pool.submit(signer.signTransaction(await fill(req))));
    }),
    eth_signTransaction: method([txRequest], async (req) => {
      const signer = signerOf(req.from);
      return data(signer.signTransaction(await fill(req)));
    }),
    eth_sign: method([p.address, p.data], (from, message) => data(signerOf(from).signMessage(message))),
    personal_sign: method([p.data, p.address], (message, from) => data(signerOf(from).signMessage(message))),
    eth_signTypedData_v4: method([p.address, json], (from, typed) => signTyped(signerOf(from), typed)),
  };
}
