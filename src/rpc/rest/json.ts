/**
 * Protobuf messages → the JSON grpc-gateway prints for a Cosmos SDK node (jsonpb with OrigName and
 * EmitDefaults): snake_case field names, every field present, 64-bit integers as decimal strings,
 * bytes as base64 (null when empty), enums by name, Timestamps as RFC 3339, `Any` inlined as
 * `{"@type": url, …fields}`, and `LegacyDec` as its decimal text (18 fraction digits).
 */
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { MsgUnjail } from 'cosmjs-types/cosmos/slashing/v1beta1/tx';
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import { PubKey as Secp256k1PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { bondStatusToJSON, type Validator } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { signModeToJSON } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, type ModeInfo, TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { decodeMsgEVMTransaction, MSG_EVM_TRANSACTION_TYPE_URL } from '../../execution/tx-wrap.ts';
import { decodeMsgAssociate, MSG_ASSOCIATE_TYPE_URL } from '../../app/association-tx.ts';
import { stakingMsgDecoders } from './staking-json.ts';
import {
  base64,
  bytesJson,
  coinJson,
  decJson,
  type Json,
  pageResponseJson,
  timestampJson,
} from './json-values.ts';

export { base64, bytesJson, coinJson, decJson, type Json, pageResponseJson, timestampJson };

/** `Any` inlined; message types the node does not know keep their bytes (as a gateway cannot). */
export function anyJson(any: Any | undefined): Json {
  if (!any) return null;
  const decode = ANY_DECODERS.get(any.typeUrl);
  return { '@type': any.typeUrl, ...(decode ? decode(any.value) : { value: base64(any.value) }) };
}

const ANY_DECODERS: ReadonlyMap<string, (b: Uint8Array) => Record<string, Json>> = new Map(
  Object.entries({
    '/cosmos.crypto.ed25519.PubKey': (b: Uint8Array) => ({ key: base64(Ed25519PubKey.decode(b).key) }),
    '/cosmos.crypto.secp256k1.PubKey': (b: Uint8Array) => ({ key: base64(Secp256k1PubKey.decode(b).key) }),
    '/cosmos.auth.v1beta1.BaseAccount': (b: Uint8Array) => {
      const a = BaseAccount.decode(b);
      return {
        address: a.address,
        pub_key: anyJson(a.pubKey),
        account_number: String(a.accountNumber),
        sequence: String(a.sequence),
      };
    },
    '/cosmos.bank.v1beta1.MsgSend': (b: Uint8Array) => {
      const m = MsgSend.decode(b);
      return { from_address: m.fromAddress, to_address: m.toAddress, amount: m.amount.map(coinJson) };
    },
    // The node's wrapper of an Ethereum tx (docs/adr/0012-every-tx-is-a-cosmos-txraw.md): `bytes data = 1`, the raw Ethereum tx.
    [MSG_EVM_TRANSACTION_TYPE_URL]: (b: Uint8Array) => ({
      data: bytesJson(decodeMsgEVMTransaction(b) ?? new Uint8Array(0)),
    }),
    ...stakingMsgDecoders((a) => anyJson(a)),
    '/cosmos.slashing.v1beta1.MsgUnjail': (b: Uint8Array) => ({
      validator_addr: MsgUnjail.decode(b).validatorAddr,
    }),
    // chain_associate's message (app/association-tx.ts); bytes as base64, v a uint32
    [MSG_ASSOCIATE_TYPE_URL]: (b: Uint8Array): Record<string, Json> => {
      const m = decodeMsgAssociate(b);
      if (!m) return { value: base64(b) };
      return { custom_message: bytesJson(m.customMessage), r: bytesJson(m.r), s: bytesJson(m.s), v: m.v };
    },
  }),
);

export function validatorJson(v: Validator): Json {
  const rates = v.commission.commissionRates;
  return {
    operator_address: v.operatorAddress,
    consensus_pubkey: anyJson(v.consensusPubkey),
    jailed: v.jailed,
    status: bondStatusToJSON(v.status),
    tokens: v.tokens,
    delegator_shares: decJson(v.delegatorShares),
    description: {
      moniker: v.description.moniker,
      identity: v.description.identity,
      website: v.description.website,
      security_contact: v.description.securityContact,
      details: v.description.details,
    },
    unbonding_height: String(v.unbondingHeight),
    unbonding_time: timestampJson(v.unbondingTime),
    commission: {
      commission_rates: {
        rate: decJson(rates.rate),
        max_rate: decJson(rates.maxRate),
        max_change_rate: decJson(rates.maxChangeRate),
      },
      update_time: timestampJson(v.commission.updateTime),
    },
    min_self_delegation: v.minSelfDelegation,
    unbonding_on_hold_ref_count: String(v.unbondingOnHoldRefCount),
    unbonding_ids: v.unbondingIds.map(String),
  };
}

function modeInfoJson(m: ModeInfo | undefined): Json {
  if (m?.single) return { single: { mode: signModeToJSON(m.single.mode) } };
  if (m?.multi) return { multi: { bitarray: null, mode_infos: m.multi.modeInfos.map(modeInfoJson) } };
  return null;
}

/** A `cosmos.tx.v1beta1.Tx` from its TxRaw parts (body and auth info bytes, signatures). */
export function txJson(raw: { bodyBytes: Uint8Array; authInfoBytes: Uint8Array; signatures: Uint8Array[] }): {
  [key: string]: Json;
} {
  const body = TxBody.decode(raw.bodyBytes);
  const auth = AuthInfo.decode(raw.authInfoBytes);
  return {
    body: {
      messages: body.messages.map(anyJson),
      memo: body.memo,
      timeout_height: String(body.timeoutHeight),
      extension_options: body.extensionOptions.map(anyJson),
      non_critical_extension_options: body.nonCriticalExtensionOptions.map(anyJson),
    },
    auth_info: {
      signer_infos: auth.signerInfos.map((s) => ({
        public_key: anyJson(s.publicKey),
        mode_info: modeInfoJson(s.modeInfo),
        sequence: String(s.sequence),
      })),
      fee: auth.fee
        ? {
            amount: auth.fee.amount.map(coinJson),
            gas_limit: String(auth.fee.gasLimit),
            payer: auth.fee.payer,
            granter: auth.fee.granter,
          }
        : null,
      tip: auth.tip ? { amount: auth.tip.amount.map(coinJson), tipper: auth.tip.tipper } : null,
    },
    signatures: raw.signatures.map(base64),
  };
}
