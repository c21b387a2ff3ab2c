/**
 * The tx service's Simulate over the app's DeliverTx: the one implementation behind gRPC's Simulate,
 * REST's `POST /cosmos/tx/v1beta1/simulate` and `abci_query` on `/cosmos.tx.v1beta1.Service/Simulate`.
 */
import { deliverCosmosTx } from '../../app/cosmos-deliver.ts';
import { CosmosTxError } from '../../app/cosmos-errors.ts';
import { decodeCosmosTx } from '../../app/cosmos-tx.ts';
import type { TxSimulate } from '../../rpc/codecs/cosmos.ts';
import { type StateReader, StateOverlay } from '../../state/overlay.ts';

/** What Simulate executes against: the latest committed state and the block's context. */
export interface SimulationSource {
  state(): StateReader;
  chainId: string;
  maxBlockGas(): bigint;
}

/**
 * Runs the tx as block execution would (ante checks, fee, sequence, messages) on an overlay that is
 * dropped afterwards, so the chain's state is untouched. A signature is verified as in a block; an
 * empty one (clients simulate before signing, CosmJS's `fee: "auto"`) is not, and the gas of a real
 * one is charged instead, as the SDK's simulate mode does.
 */
export function simulator(src: SimulationSource): TxSimulate {
  return (raw) => {
    let gasWanted = 0n;
    try {
      const tx = decodeCosmosTx(raw, { simulate: true });
      gasWanted = tx.gasLimit;
      const ctx = { chainId: src.chainId, maxBlockGas: src.maxBlockGas(), simulate: true };
      return deliverCosmosTx(tx, new StateOverlay(src.state()), ctx);
    } catch (err) {
      if (!(err instanceof CosmosTxError)) throw err;
      // Ante failures consume nothing the block would keep: gas used 0, as the tx is not includable.
      return {
        code: err.abciCode,
        codespace: err.codespace,
        log: err.message,
        gasWanted,
        gasUsed: 0n,
        events: [],
      };
    }
  };
}
