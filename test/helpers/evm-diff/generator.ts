/**
 * A deterministic generator of Ethereum blocks in chaind's own rules, for the differential runs of
 * the two block engines (harness.ts). One seed gives the same blocks everywhere: a seeded PRNG picks
 * each tx's kind, sender, values and fees, and keys are derived from it.
 *
 * The generator keeps its own view of nonces (what each tx it makes will consume) and is told, after
 * each block, the nonces the chain holds for the accounts the block touched (`afterBlock`), so a tx
 * left out (on purpose or not) never stalls a sender for long. Contracts deployed by a block are used
 * from the next block on.
 */
import { bn254 } from '@noble/curves/bn254.js';
import {
  AbiCoder,
  Interface,
  SigningKey,
  Transaction,
  Wallet,
  getCreate2Address,
  getCreateAddress,
  keccak256,
  type TransactionLike,
} from 'ethers';
import { CORRECT_PROOF, ZERO_POLYNOMIAL, pointEvaluationInput } from '../../fixtures/point-evaluation.ts';
import { CHAIN_ID, artifacts, devWallets } from '../dev-chain.ts';
import { seededRandom } from '../random.ts';

export interface GeneratedTx {
  raw: Uint8Array;
  /** what the tx exercises (names the tx in a difference report) */
  kind: string;
  /** the particulars of this one (which precompile, and whether its input is valid) */
  detail?: string;
  /** 20-byte hex of the sender and of an authority whose nonce the tx may move */
  touches: string[];
}

/** What the generator reads of the chain between blocks. */
export interface ChainView {
  baseFee: bigint;
  gasLimit: bigint;
  nonce(address: string): bigint;
}

const GWEI = 10n ** 9n;
const ETHER = 10n ** 18n;
const ZERO_ADDRESS = '0x' + '00'.repeat(20);
const abi = AbiCoder.defaultAbiCoder();
const iface = (name: string) => new Interface(artifacts[name].abi);
const I = {
  storage: iface('DiffStorage'),
  faults: iface('DiffFaults'),
  caller: iface('DiffCaller'),
  factory: iface('DiffFactory'),
  child: iface('DiffChild'),
  pair: iface('DiffPair'),
  nft: iface('DiffNft'),
  impl: iface('DiffImpl'),
  delegate: iface('DiffDelegate'),
  token: iface('TestToken'),
};
const CHILD_INIT_HASH = keccak256(artifacts.DiffChild.bytecode);
const TOKEN_SUPPLY = 10n ** 30n;

interface Actor {
  wallet: Wallet;
  address: string;
}

interface Contracts {
  storage: string;
  faults: string;
  caller: string;
  factory: string;
  tokenA: string;
  tokenB: string;
  nft: string;
  impl: string;
  delegate: string;
  pair: string;
  proxy: string;
}

type Maker = () => void;

/** Every kind of tx the random phase makes, with its weight. */
const KINDS: [string, number][] = [
  ['transfer', 8],
  ['transfer-fresh-address', 3],
  ['transfer-self', 2],
  ['transfer-to-contract', 2],
  ['fund-fresh-key', 4],
  ['fresh-key-first-tx', 4],
  ['fresh-key-cannot-pay', 1],
  ['legacy', 4],
  ['eip2930-access-list', 4],
  ['eip7702-set', 2],
  ['eip7702-clear', 1],
  ['eip7702-fresh-authority', 1],
  ['eip7702-call-delegated', 2],
  ['deploy', 2],
  ['deploy-out-of-gas', 1],
  ['create2', 2],
  ['create-and-selfdestruct', 2],
  ['selfdestruct-old', 1],
  ['revert-reason', 2],
  ['out-of-gas', 2],
  ['invalid-opcode', 1],
  ['precompile-direct', 4],
  ['precompile-call', 4],
  ['storage-fill', 3],
  ['storage-clear', 2],
  ['storage-set-clear', 1],
  ['transient-storage', 2],
  ['erc20-transfer', 4],
  ['erc20-insufficient', 1],
  ['pair-swap', 4],
  ['pair-swap-k-violated', 1],
  ['nft-mint', 3],
  ['nft-transfer', 1],
  ['proxy-call', 3],
  ['proxy-revert', 1],
  ['reject-nonce-too-high', 1],
  ['reject-nonce-too-low', 1],
  ['reject-fee-cap-below-base-fee', 1],
  ['reject-over-block-gas', 1],
  ['reject-intrinsic-gas', 1],
  ['cannot-pay', 1],
];

/** Every kind the generator makes, the setup's included (the test checks each ran at least once). */
export const ALL_KINDS = [...KINDS.map(([k]) => k), 'setup-deploy', 'setup-call'];

export class BlockGenerator {
  private readonly rand: () => number;
  private readonly deployer: Actor;
  private readonly actors: Actor[];
  /** keys funded on their cast address, not yet sent from */
  private readonly funded: Actor[] = [];
  /** keys funded with too little to pay for their first tx */
  private readonly poor: Actor[] = [];
  /** accounts an EIP-7702 authorization may delegate */
  private readonly authorities: Actor[];
  private readonly delegated = new Set<string>();
  private readonly nonces = new Map<string, bigint>();
  private readonly c: Contracts;
  private readonly children: string[] = [];
  private readonly newChildren: string[] = [];
  private readonly storages: string[] = [];
  private readonly newStorages: string[] = [];
  private readonly nftIds = new Map<string, bigint[]>();
  private nftMinted = 0n;
  private height = 0;
  private block: GeneratedTx[] = [];
  private view!: ChainView;
  private readonly weightTotal = KINDS.reduce((s, [, w]) => s + w, 0);
  private readonly makers: Record<string, Maker>;

  constructor(seed: number) {
    this.rand = seededRandom(seed);
    this.deployer = actor(devWallets[0]);
    this.actors = devWallets.slice(1).map(actor);
    this.authorities = devWallets.slice(7).map(actor);
    const at = (n: number) => getCreateAddress({ from: this.deployer.address, nonce: n });
    this.c = {
      storage: at(0),
      faults: at(1),
      caller: at(2),
      factory: at(3),
      tokenA: at(4),
      tokenB: at(5),
      nft: at(6),
      impl: at(7),
      delegate: at(8),
      pair: at(9),
      proxy: at(10),
    };
    this.makers = this.kindMakers();
  }

  /** The next block's transactions, in block order. */
  nextBlock(view: ChainView, txCount: number): GeneratedTx[] {
    this.view = view;
    this.height++;
    this.block = [];
    if (this.height === 1) this.setupDeploys();
    else if (this.height === 2) this.setupLiquidity();
    else if (this.height === 3) this.setupApprovals();
    else {
      const last: string[] = [];
      for (let i = 0; i < txCount; i++) {
        const kind = this.pickKind();
        // a tx over the block's gas goes last, after the block used some
        if (kind === 'reject-over-block-gas') last.push(kind);
        else this.makers[kind]();
      }
      for (const k of last) this.makers[k]();
    }
    return this.block;
  }

  /** After the block ran: what its txs' senders and authorities now hold as nonces. */
  afterBlock(nonceOf: (address: string) => bigint): void {
    for (const tx of this.block) for (const a of tx.touches) this.nonces.set(a, nonceOf(a));
    this.children.push(...this.newChildren.splice(0));
    this.storages.push(...this.newStorages.splice(0));
  }

  // ---- setup: the contracts every later block uses ----

  private setupDeploys(): void {
    const d = this.deployer;
    for (const name of ['DiffStorage', 'DiffFaults', 'DiffCaller', 'DiffFactory'])
      this.send(d, 'setup-deploy', { data: artifacts[name].bytecode, gasLimit: 2_000_000n });
    for (const sym of ['TKA', 'TKB'])
      this.send(d, 'setup-deploy', {
        data: artifacts.TestToken.bytecode + I.token.encodeDeploy([sym, sym, TOKEN_SUPPLY]).slice(2),
        gasLimit: 2_000_000n,
      });
    for (const name of ['DiffNft', 'DiffImpl', 'DiffDelegate'])
      this.send(d, 'setup-deploy', { data: artifacts[name].bytecode, gasLimit: 2_000_000n });
    this.storages.push(this.c.storage);
  }

  private setupLiquidity(): void {
    const d = this.deployer;
    const pairInit = I.pair.encodeDeploy([this.c.tokenA, this.c.tokenB]).slice(2);
    this.send(d, 'setup-deploy', { data: artifacts.DiffPair.bytecode + pairInit, gasLimit: 2_000_000n });
    const proxyInit = abi.encode(['address'], [this.c.impl]).slice(2);
    this.send(d, 'setup-deploy', { data: artifacts.DiffProxy.bytecode + proxyInit, gasLimit: 2_000_000n });
    const liquidity = 10n ** 24n;
    for (const t of [this.c.tokenA, this.c.tokenB]) {
      this.send(d, 'setup-call', {
        to: t,
        data: I.token.encodeFunctionData('transfer', [this.c.pair, liquidity]),
      });
      for (const a of this.actors)
        this.send(d, 'setup-call', {
          to: t,
          data: I.token.encodeFunctionData('transfer', [a.address, 10n ** 25n]),
        });
    }
    this.send(d, 'setup-call', { to: this.c.pair, data: I.pair.encodeFunctionData('sync') });
  }

  private setupApprovals(): void {
    for (const a of this.actors)
      for (const t of [this.c.tokenA, this.c.tokenB])
        this.send(a, 'setup-call', {
          to: t,
          data: I.token.encodeFunctionData('approve', [this.c.pair, 2n ** 255n]),
        });
  }

  // ---- the random phase ----

  private pickKind(): string {
    let r = this.rand() * this.weightTotal;
    for (const [k, w] of KINDS) {
      r -= w;
      if (r < 0) return k;
    }
    return KINDS[0][0];
  }

  private kindMakers(): Record<string, Maker> {
    const c = this.c;
    const call = (
      kind: string,
      to: string,
      data: string,
      gasLimit = 300_000n,
      extra: Partial<TransactionLike> = {},
    ) => this.send(this.anyActor(), kind, { to, data, gasLimit, ...extra });
    return {
      transfer: () =>
        this.send(this.anyActor(), 'transfer', { to: this.anyActor().address, value: this.amount() }),
      'transfer-fresh-address': () =>
        this.send(this.anyActor(), 'transfer-fresh-address', {
          to: this.freshAddress(),
          value: this.amount(),
        }),
      'transfer-self': () => {
        const a = this.anyActor();
        this.send(a, 'transfer-self', { to: a.address, value: this.amount() });
      },
      'transfer-to-contract': () => {
        // a child's receive accepts; the storage contract has none and reverts; a delegated EOA runs its delegate
        const targets = [...this.children.slice(-3), c.storage, ...this.delegated];
        this.send(this.anyActor(), 'transfer-to-contract', {
          to: this.pick(targets),
          value: this.amount(),
          gasLimit: this.pick([21_000n, 30_000n, 60_000n]),
        });
      },
      'fund-fresh-key': () => {
        const key = this.freshKey();
        this.send(this.anyActor(), 'fund-fresh-key', { to: key.address, value: ETHER / 10n + this.amount() });
        this.funded.push(key);
      },
      'fresh-key-first-tx': () => {
        const key = this.funded.shift();
        if (!key) return this.makers['fund-fresh-key']();
        this.send(key, 'fresh-key-first-tx', { to: this.anyActor().address, value: this.amount() / 100n });
        this.actors.push(key);
      },
      'fresh-key-cannot-pay': () => {
        const key = this.poor.shift();
        if (!key) {
          const k = this.freshKey();
          this.send(this.anyActor(), 'fresh-key-cannot-pay', {
            to: k.address,
            value: BigInt(this.int(1, 10_000)),
          });
          this.poor.push(k);
          return;
        }
        this.send(key, 'fresh-key-cannot-pay', { to: this.anyActor().address, value: 1n });
      },
      legacy: () => {
        const a = this.anyActor();
        const gasPrice = this.view.baseFee + BigInt(this.int(0, 3)) * GWEI;
        if (this.rand() < 0.5)
          this.send(a, 'legacy', { type: 0, gasPrice, to: this.anyActor().address, value: this.amount() });
        else
          this.send(a, 'legacy', {
            type: 0,
            gasPrice,
            to: c.nft,
            data: I.nft.encodeFunctionData('mint', [a.address]),
            gasLimit: 200_000n,
          });
      },
      'eip2930-access-list': () => {
        const start = BigInt(this.int(0, 50));
        const slots = [0, 1, 2].map((i) => keccakSlot(start + BigInt(i)));
        const accessList = [
          { address: c.storage, storageKeys: this.rand() < 0.7 ? slots : [] },
          ...(this.rand() < 0.3 ? [{ address: this.anyActor().address, storageKeys: [] }] : []),
        ];
        this.send(this.anyActor(), 'eip2930-access-list', {
          type: 1,
          gasPrice: this.view.baseFee + BigInt(this.int(0, 2)) * GWEI,
          to: c.storage,
          data: I.storage.encodeFunctionData('fill', [start, 3n, BigInt(this.int(0, 1000))]),
          gasLimit: 200_000n,
          accessList,
        });
      },
      'eip7702-set': () => this.setCode('eip7702-set', this.pick(this.authorities), c.delegate),
      'eip7702-clear': () => this.setCode('eip7702-clear', this.pick(this.authorities), ZERO_ADDRESS),
      'eip7702-fresh-authority': () => {
        const k = this.freshKey();
        this.setCode('eip7702-fresh-authority', k, c.delegate);
        this.authorities.push(k);
      },
      'eip7702-call-delegated': () => {
        const target = this.delegated.size
          ? this.pick([...this.delegated])
          : this.pick(this.authorities).address;
        call('eip7702-call-delegated', target, I.delegate.encodeFunctionData('ping'), 100_000n, {
          value: this.amount() / 1000n,
        });
      },
      deploy: () => {
        const a = this.anyActor();
        const which = this.pick(['DiffStorage', 'DiffNft', 'DiffChild', 'TestToken']);
        const data =
          which === 'TestToken'
            ? artifacts.TestToken.bytecode +
              I.token.encodeDeploy(['T', 'T', BigInt(this.int(1, 1e9))]).slice(2)
            : artifacts[which].bytecode;
        const at = getCreateAddress({ from: a.address, nonce: this.nonceOf(a.address) });
        this.send(a, 'deploy', {
          data,
          gasLimit: 2_000_000n,
          value: which === 'DiffChild' ? this.amount() : 0n,
        });
        if (which === 'DiffStorage') this.newStorages.push(at);
        if (which === 'DiffChild') this.newChildren.push(at);
      },
      'deploy-out-of-gas': () =>
        this.send(this.anyActor(), 'deploy-out-of-gas', {
          data: artifacts.DiffStorage.bytecode,
          gasLimit: BigInt(this.int(70_000, 150_000)),
        }),
      create2: () => {
        // salts from a small range: some collide with a child already there, and the creation fails
        const salt = word(this.int(0, 200));
        this.newChildren.push(getCreate2Address(c.factory, salt, CHILD_INIT_HASH));
        call('create2', c.factory, I.factory.encodeFunctionData('create2', [salt]), 400_000n, {
          value: this.amount(),
        });
      },
      'create-and-selfdestruct': () =>
        call(
          'create-and-selfdestruct',
          c.factory,
          I.factory.encodeFunctionData('createAndKill', [word(this.int(0, 1e6)), this.beneficiary()]),
          400_000n,
          { value: this.amount() },
        ),
      'selfdestruct-old': () => {
        if (this.children.length === 0) return this.makers.create2();
        call(
          'selfdestruct-old',
          this.pick(this.children),
          I.child.encodeFunctionData('kill', [this.beneficiary()]),
          100_000n,
        );
      },
      'revert-reason': () =>
        call(
          'revert-reason',
          c.faults,
          I.faults.encodeFunctionData('fail', ['no: ' + 'x'.repeat(this.int(0, 80))]),
        ),
      'out-of-gas': () =>
        call('out-of-gas', c.faults, I.faults.encodeFunctionData('burn'), BigInt(this.int(30_000, 200_000))),
      'invalid-opcode': () => call('invalid-opcode', c.faults, I.faults.encodeFunctionData('bad'), 100_000n),
      'precompile-direct': () => {
        const [address, input] = this.precompileInput();
        this.send(this.anyActor(), 'precompile-direct', { to: address, data: input, gasLimit: 400_000n });
        this.detailLast(address, input);
      },
      'precompile-call': () => {
        const [address, input] = this.precompileInput();
        const fn = this.rand() < 0.8 ? 'call' : 'staticCall';
        call('precompile-call', c.caller, I.caller.encodeFunctionData(fn, [address, input]), 500_000n);
        this.detailLast(address, input);
      },
      'storage-fill': () =>
        call(
          'storage-fill',
          this.pick(this.storages),
          I.storage.encodeFunctionData('fill', [
            BigInt(this.int(0, 200)),
            BigInt(this.int(1, 60)),
            BigInt(this.int(0, 3)),
          ]),
          2_000_000n,
        ),
      'storage-clear': () =>
        call(
          'storage-clear',
          this.pick(this.storages),
          I.storage.encodeFunctionData('clear', [BigInt(this.int(0, 200)), BigInt(this.int(1, 60))]),
          1_000_000n,
        ),
      'storage-set-clear': () =>
        call(
          'storage-set-clear',
          c.storage,
          I.storage.encodeFunctionData('setThenClear', [BigInt(this.int(0, 300))]),
          100_000n,
        ),
      'transient-storage': () =>
        call(
          'transient-storage',
          c.storage,
          I.storage.encodeFunctionData('transient', [BigInt(this.int(0, 40))]),
          300_000n,
        ),
      'erc20-transfer': () =>
        call(
          'erc20-transfer',
          this.pick([c.tokenA, c.tokenB]),
          I.token.encodeFunctionData('transfer', [this.recipient(), BigInt(this.int(0, 1e9)) * 10n ** 9n]),
          100_000n,
        ),
      'erc20-insufficient': () =>
        call(
          'erc20-insufficient',
          c.tokenA,
          I.token.encodeFunctionData('transfer', [this.recipient(), 10n ** 29n]),
          100_000n,
        ),
      'pair-swap': () => {
        const a = this.pick(this.actors.slice(0, 9));
        this.send(a, 'pair-swap', {
          to: c.pair,
          data: I.pair.encodeFunctionData('swapIn', [
            this.rand() < 0.5,
            BigInt(this.int(1, 1e6)) * 10n ** 15n,
            a.address,
          ]),
          gasLimit: 300_000n,
        });
      },
      'pair-swap-k-violated': () =>
        call(
          'pair-swap-k-violated',
          c.pair,
          I.pair.encodeFunctionData('swap', [0n, BigInt(this.int(1, 1e6)), this.recipient()]),
          300_000n,
        ),
      'nft-mint': () => {
        const to = this.anyActor();
        this.nftMinted++;
        const ids = this.nftIds.get(to.address) ?? [];
        ids.push(this.nftMinted);
        this.nftIds.set(to.address, ids);
        call('nft-mint', c.nft, I.nft.encodeFunctionData('mint', [to.address]), 200_000n);
      },
      'nft-transfer': () => {
        // an id the sender may or may not own: NOT_OWNER reverts are part of the workload
        const a = this.anyActor();
        const ids = this.nftIds.get(a.address);
        const id = ids?.length ? ids.pop()! : BigInt(this.int(1, 50));
        this.send(a, 'nft-transfer', {
          to: c.nft,
          data: I.nft.encodeFunctionData('transfer', [this.recipient(), id]),
          gasLimit: 200_000n,
        });
      },
      'proxy-call': () =>
        call('proxy-call', c.proxy, I.impl.encodeFunctionData('bump', [BigInt(this.int(1, 1000))]), 200_000n),
      'proxy-revert': () => call('proxy-revert', c.proxy, I.impl.encodeFunctionData('boom'), 200_000n),
      'reject-nonce-too-high': () => {
        const a = this.anyActor();
        this.send(
          a,
          'reject-nonce-too-high',
          { to: a.address, nonce: Number(this.nonceOf(a.address) + 3n) },
          false,
        );
      },
      'reject-nonce-too-low': () => {
        const a = this.deployer;
        this.send(a, 'reject-nonce-too-low', { to: a.address, nonce: this.int(0, 5) }, false);
      },
      'reject-fee-cap-below-base-fee': () =>
        this.send(
          this.anyActor(),
          'reject-fee-cap-below-base-fee',
          { to: this.recipient(), maxFeePerGas: this.view.baseFee - 1n, maxPriorityFeePerGas: 0n },
          false,
        ),
      'reject-over-block-gas': () =>
        this.send(
          this.anyActor(),
          'reject-over-block-gas',
          {
            to: this.recipient(),
            gasLimit: this.rand() < 0.5 ? this.view.gasLimit : this.view.gasLimit + 1n,
          },
          false,
        ),
      'reject-intrinsic-gas': () =>
        this.send(
          this.anyActor(),
          'reject-intrinsic-gas',
          { to: this.recipient(), data: '0x' + 'ff'.repeat(this.int(0, 100)), gasLimit: 20_999n },
          false,
        ),
      'cannot-pay': () =>
        this.send(this.anyActor(), 'cannot-pay', { to: this.recipient(), value: 10n ** 24n + this.amount() }),
    };
  }

  /** An EIP-7702 tx: `authority` delegates to `target` (the zero address clears the delegation). */
  private setCode(kind: string, authority: Actor, target: string): void {
    const sender = this.anyActor();
    const self = sender.address === authority.address;
    const authNonce = this.nonceOf(authority.address) + (self ? 1n : 0n);
    // some authorizations are for another chain or a stale nonce: skipped, the tx still runs
    const bad = this.rand() < 0.1;
    const auth = authority.wallet.authorizeSync({
      address: target,
      nonce: bad ? authNonce + 7n : authNonce,
      chainId: this.rand() < 0.1 ? 0n : CHAIN_ID,
    });
    if (!bad) {
      if (target === ZERO_ADDRESS) this.delegated.delete(authority.address);
      else this.delegated.add(authority.address);
    }
    const to = this.rand() < 0.5 ? authority.address : this.anyActor().address;
    this.send(
      sender,
      kind,
      {
        type: 4,
        to,
        data: to === authority.address ? I.delegate.encodeFunctionData('ping') : '0x',
        gasLimit: 200_000n,
        authorizationList: [auth],
      },
      true,
      bad ? [] : [authority.address],
    );
    if (!bad) this.nonces.set(authority.address, this.nonceOf(authority.address) + 1n);
  }

  /** A precompile's address and an input for it, valid or not. */
  private precompileInput(): [string, string] {
    const p = this.int(1, 11);
    const address = '0x' + p.toString(16).padStart(40, '0');
    const bad = this.rand() < 0.15;
    const rnd = (n: number) => hexBytes(this.rand, n);
    switch (p) {
      case 1: {
        const key = new SigningKey(word(this.int(1, 1e9)));
        const hash = keccak256(word(this.int(0, 1e9)));
        const sig = key.sign(hash);
        const v = bad ? 29 : sig.v;
        return [address, hash + word(v).slice(2) + sig.r.slice(2) + sig.s.slice(2)];
      }
      case 5: {
        const [bl, el, ml] = [this.int(1, 64), this.int(1, 32), this.int(1, 64)];
        return [
          address,
          '0x' + [bl, el, ml].map((n) => word(n).slice(2)).join('') + rnd(bl) + rnd(el) + rnd(ml),
        ];
      }
      case 6: {
        const a = bn254.G1.Point.BASE.multiply(BigInt(this.int(1, 1e6)));
        const b = bn254.G1.Point.BASE.multiply(BigInt(this.int(1, 1e6)));
        return [address, '0x' + g1(a) + (bad ? rnd(64) : g1(b))];
      }
      case 7: {
        const a = bn254.G1.Point.BASE.multiply(BigInt(this.int(1, 1e6)));
        return [address, '0x' + (bad ? rnd(64) : g1(a)) + word(this.int(0, 1e9)).slice(2)];
      }
      case 8: {
        if (this.rand() < 0.2) return [address, '0x'];
        const k = BigInt(this.int(1, 1e6));
        const p1 = bn254.G1.Point.BASE.multiply(k);
        const g2 = bn254.G2.Point.BASE;
        // e(kG1, G2) · e(-kG1, G2) = 1; a bad pair breaks the second point
        const input = g1(p1) + g2Hex(g2) + (bad ? g1(p1) : g1(p1.negate())) + g2Hex(g2);
        return [address, '0x' + input];
      }
      case 9: {
        const rounds = this.int(0, 24);
        const f = bad ? '02' : this.rand() < 0.5 ? '01' : '00';
        return [address, '0x' + rounds.toString(16).padStart(8, '0') + rnd(64 + 128 + 16) + f];
      }
      case 10: {
        const v = this.rand() < 0.5 ? CORRECT_PROOF : ZERO_POLYNOMIAL;
        const input = pointEvaluationInput(v);
        return [address, bad ? input.slice(0, -2) + (input.endsWith('00') ? '01' : '00') : input];
      }
      default:
        return [address, '0x' + rnd(this.int(0, 300))];
    }
  }

  // ---- helpers ----

  private detailLast(address: string, input: string): void {
    this.block[this.block.length - 1].detail =
      `precompile 0x${address.slice(-2)}, input ${input.length > 200 ? input.slice(0, 200) + '…' : input}`;
  }

  private send(
    from: Actor,
    kind: string,
    req: Partial<TransactionLike<string>>,
    consumes = true,
    alsoTouches: string[] = [],
  ): void {
    const type = req.type ?? 2;
    const nonce = req.nonce ?? Number(this.nonceOf(from.address));
    const base = this.view?.baseFee ?? GWEI;
    const tx = Transaction.from({
      chainId: CHAIN_ID,
      type,
      nonce: Number(nonce),
      gasLimit: req.gasLimit ?? 60_000n,
      to: req.to ?? null,
      value: req.value ?? 0n,
      data: req.data ?? '0x',
      ...(type === 0 || type === 1 ? { gasPrice: req.gasPrice ?? base + GWEI } : this.fees(base, req)),
      ...(req.accessList && { accessList: req.accessList }),
      ...(req.authorizationList && { authorizationList: req.authorizationList }),
    });
    tx.signature = from.wallet.signingKey.sign(tx.unsignedHash);
    if (consumes && req.nonce === undefined) this.nonces.set(from.address, this.nonceOf(from.address) + 1n);
    this.block.push({
      raw: Buffer.from(tx.serialized.slice(2), 'hex'),
      kind,
      touches: [from.address, ...alsoTouches],
    });
  }

  /** A fee cap above the base fee by up to 3 gwei and a tip up to 3 gwei: the cap binds now and then. */
  private fees(base: bigint, req: Partial<TransactionLike<string>>) {
    const maxFeePerGas = req.maxFeePerGas ?? base + BigInt(this.int(0, 3_000)) * 10n ** 6n;
    const tip = BigInt(req.maxPriorityFeePerGas ?? BigInt(this.int(0, 3_000)) * 10n ** 6n);
    return { maxFeePerGas, maxPriorityFeePerGas: tip < BigInt(maxFeePerGas) ? tip : maxFeePerGas };
  }

  private nonceOf(address: string): bigint {
    let n = this.nonces.get(address);
    if (n === undefined) {
      n = this.view.nonce(address);
      this.nonces.set(address, n);
    }
    return n;
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo));
  }

  private pick<T>(xs: T[]): T {
    return xs[Math.floor(this.rand() * xs.length)];
  }

  private anyActor(): Actor {
    // the dev accounts most of the time; the keys that joined later now and then
    return this.rand() < 0.7 ? this.pick(this.actors.slice(0, 9)) : this.pick(this.actors);
  }

  private recipient(): string {
    return this.rand() < 0.8 ? this.anyActor().address : this.freshAddress();
  }

  private beneficiary(): string {
    const r = this.rand();
    return r < 0.4 ? this.anyActor().address : r < 0.7 ? this.freshAddress() : this.c.factory;
  }

  private amount(): bigint {
    return BigInt(this.int(0, 1e6)) * 10n ** 9n;
  }

  private freshKey(): Actor {
    return actor(new Wallet(this.freshWord()));
  }

  private freshAddress(): string {
    return '0x' + this.freshWord().slice(26);
  }

  private freshWord(): string {
    return '0x' + hexBytes(this.rand, 32);
  }
}

function actor(wallet: Wallet): Actor {
  return { wallet, address: wallet.address.toLowerCase() };
}

function word(n: number | bigint): string {
  return '0x' + BigInt(n).toString(16).padStart(64, '0');
}

/** The slot of `slots[k]` in DiffStorage (a mapping at slot 0). */
function keccakSlot(k: bigint): string {
  return keccak256(abi.encode(['uint256', 'uint256'], [k, 0n]));
}

function hexBytes(rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++)
    s += Math.floor(rand() * 256)
      .toString(16)
      .padStart(2, '0');
  return s;
}

type G1 = ReturnType<typeof bn254.G1.Point.BASE.multiply>;
function g1(p: G1): string {
  const { x, y } = p.toAffine();
  return x.toString(16).padStart(64, '0') + y.toString(16).padStart(64, '0');
}

function g2Hex(p: typeof bn254.G2.Point.BASE): string {
  const { x, y } = p.toAffine();
  const h = (n: bigint) => n.toString(16).padStart(64, '0');
  // the precompile takes each Fp2 element imaginary part first
  return h(x.c1) + h(x.c0) + h(y.c1) + h(y.c0);
}
