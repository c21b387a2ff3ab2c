/**
 * State edits as anvil and Hardhat serve them: balance, nonce, code, a storage slot, the next
 * block's base fee. Each is committed as a block of its own that holds only the edit (a dev state
 * patch), so the very next call at `latest` sees it, every store takes it with that block, history
 * before it stays, and a restart replays it. Answers are anvil's (null where anvil answers nothing)
 * except under the `hardhat_` names, which answer `true` as Hardhat does.
 */
import { p } from '../codecs/params.ts';
import { method, type MethodDef, type MethodTable } from '../server/dispatcher.ts';
import { InvalidParamsError } from '../server/errors.ts';
import type { DevNode, DevStateEdit } from './backend.ts';
import { u256 } from './params.ts';

const MAX_U64 = 2n ** 64n - 1n;

function slotOf(position: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31, n = position; n > 0n; i--, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
}

/** `def` answering `answer` once its handler is done. */
function answering(def: MethodDef, answer: null | true): MethodDef {
  return {
    ...def,
    handler: async (...args: unknown[]) => {
      await def.handler(...args);
      return answer;
    },
  };
}

export function stateMethods(dev: DevNode): MethodTable {
  const edit = (e: DevStateEdit) => dev.state.edit([e]);
  /** An edit under both names: `hardhat_` answers true, `anvil_` anvil's answer. */
  const both = (name: string, def: MethodDef, anvilAnswer: null | true = null): MethodTable => ({
    [`hardhat_${name}`]: answering(def, true),
    [`anvil_${name}`]: answering(def, anvilAnswer),
  });
  const nonceOf = (n: bigint) => {
    if (n > MAX_U64) throw new InvalidParamsError(`nonce ${n} does not fit in 64 bits`);
    return n;
  };
  return {
    ...both(
      'setBalance',
      method([p.address, u256], (address, wei) => edit({ op: 'setBalance', address, wei })),
    ),
    anvil_addBalance: method([p.address, u256], async (address, wei) => {
      await edit({ op: 'addBalance', address, wei });
      return null;
    }),
    ...both(
      'setCode',
      method([p.address, p.data], (address, code) => edit({ op: 'setCode', address, code })),
    ),
    ...both(
      'setNonce',
      method([p.address, u256], (address, nonce) => edit({ op: 'setNonce', address, nonce: nonceOf(nonce) })),
    ),
    ...both(
      'setStorageAt',
      method([p.address, u256, p.data], (address, position, value) => {
        if (value.length !== 32)
          throw new InvalidParamsError(`the storage value must be exactly 32 bytes, not ${value.length}`);
        return edit({ op: 'setStorage', address, slot: slotOf(position), value });
      }),
      true,
    ),
    ...both(
      'setNextBlockBaseFeePerGas',
      method([u256], (wei) => edit({ op: 'setNextBaseFee', wei })),
    ),
    evm_setBlockGasLimit: method([u256], async (gas) => {
      if (gas < 1n || gas >= 2n ** 63n)
        throw new InvalidParamsError(`a block gas limit must be from 1 to 2^63 - 1, not ${gas}`);
      await edit({ op: 'setGasLimit', gas });
      return true;
    }),
    ...both(
      'setCoinbase',
      method([p.address], (address) => edit({ op: 'setCoinbase', address })),
    ),
    hardhat_setPrevRandao: method([p.hash], async (value) => {
      await edit({ op: 'setPrevRandao', value });
      return true;
    }),
    // a minimum gas price is a pre-London rule: both tools refuse it on an EIP-1559 chain, as this is
    hardhat_setMinGasPrice: method([u256], () => {
      throw new InvalidParamsError('hardhat_setMinGasPrice is not supported when EIP-1559 is active');
    }),
    anvil_setMinGasPrice: method([u256], () => {
      throw new InvalidParamsError('anvil_setMinGasPrice is not supported when EIP-1559 is active');
    }),
  };
}
