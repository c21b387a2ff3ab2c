/**
 * The EIP-1559 base fee schedule with the genesis parameters (`app_state.evm.params.base_fee`) and a
 * floor: the next block's base fee moves toward the gas target by at most 1/denominator per block.
 */
export interface BaseFeeParams {
  initialBaseFee: bigint;
  minBaseFee: bigint;
  changeDenominator: bigint;
  elasticityMultiplier: bigint;
}

export function nextBaseFee(
  p: BaseFeeParams,
  parentBaseFee: bigint,
  parentGasUsed: bigint,
  gasLimit: bigint,
): bigint {
  const target = gasLimit / p.elasticityMultiplier;
  let next = parentBaseFee;
  if (target > 0n && parentGasUsed > target) {
    const delta = (parentBaseFee * (parentGasUsed - target)) / target / p.changeDenominator;
    next = parentBaseFee + (delta > 1n ? delta : 1n);
  } else if (target > 0n && parentGasUsed < target) {
    next = parentBaseFee - (parentBaseFee * (target - parentGasUsed)) / target / p.changeDenominator;
  }
  return next < p.minBaseFee ? p.minBaseFee : next;
}

export function baseFeeParamsFrom(genesis: {
  initial_base_fee: string;
  min_base_fee: string;
  base_fee_change_denominator: string;
  elasticity_multiplier: string;
}): BaseFeeParams {
  return {
    initialBaseFee: BigInt(genesis.initial_base_fee),
    minBaseFee: BigInt(genesis.min_base_fee),
    changeDenominator: BigInt(genesis.base_fee_change_denominator),
    elasticityMultiplier: BigInt(genesis.elasticity_multiplier),
  };
}
