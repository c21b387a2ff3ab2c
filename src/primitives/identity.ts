/** The chain's identity constants: address prefixes, base denom, wei per uchain. */
export const BECH32_ACCOUNT_PREFIX = 'chain';
export const BECH32_VALOPER_PREFIX = 'chainvaloper';
export const BASE_DENOM = 'uchain';
/** 1 uchain = 10^12 wei, so EVM balances have 18 decimals while the bank keeps 6. */
export const WEI_PER_UCHAIN = 10n ** 12n;
/** 1 display token = 10^6 uchain = 10^18 wei. */
export const UCHAIN_PER_TOKEN = 10n ** 6n;
export const DEFAULT_EVM_CHAIN_ID = 713714;
export const CLIENT_NAME = 'chaind';
