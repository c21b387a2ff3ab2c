/** An in-memory StakingForSlashing for slashing's unit tests: validators by address, every slash recorded. */
import type { StakingForSlashing, ValidatorForSlashing } from '../../../../src/app/staking/for-slashing.ts';
import { StateOverlay } from '../../../../src/state/overlay.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export interface SlashCall {
  consAddress: Uint8Array;
  infractionHeight: number;
  power: bigint;
  fraction: bigint;
}

export class FakeStaking implements StakingForSlashing {
  readonly validators: ValidatorForSlashing[] = [];
  readonly slashes: SlashCall[] = [];
  readonly selfDelegation = new Map<string, bigint>();

  add(v: Partial<ValidatorForSlashing> & { consAddress: Uint8Array }): ValidatorForSlashing {
    const validator: ValidatorForSlashing = {
      operator: v.operator ?? v.consAddress.map((b) => b ^ 0xff),
      jailed: false,
      status: 'BOND_STATUS_BONDED',
      tokens: 10_000_000n,
      minSelfDelegation: 1n,
      ...v,
    };
    this.validators.push(validator);
    this.selfDelegation.set(hex(validator.operator), validator.tokens);
    return validator;
  }

  validatorByConsAddr(consAddress: Uint8Array) {
    return this.validators.find((v) => hex(v.consAddress) === hex(consAddress));
  }
  validatorByOperator(operator: Uint8Array) {
    return this.validators.find((v) => hex(v.operator) === hex(operator));
  }
  selfDelegationTokens(operator: Uint8Array): bigint {
    return this.selfDelegation.get(hex(operator)) ?? 0n;
  }
  slash(consAddress: Uint8Array, infractionHeight: number, power: bigint, fraction: bigint): bigint {
    this.slashes.push({ consAddress, infractionHeight, power, fraction });
    // power × reduction × fraction, truncated, as the burned amount the events report
    return (power * 1_000_000n * fraction) / 10n ** 18n;
  }
  jail(consAddress: Uint8Array): void {
    this.validatorByConsAddr(consAddress)!.jailed = true;
  }
  unjail(operator: Uint8Array): void {
    this.validatorByOperator(operator)!.jailed = false;
  }
}

/** A block's state that counts its writes: "no write" must mean no set() at all, not a no-op set. */
export class CountingState extends StateOverlay {
  setCalls = 0;
  constructor() {
    super({ get: () => undefined });
  }
  override set(store: string, key: Uint8Array, value: Uint8Array | undefined): void {
    this.setCalls++;
    super.set(store, key, value);
  }
}
