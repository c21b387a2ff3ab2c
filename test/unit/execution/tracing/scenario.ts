/**
 * The debug_trace* scenario: one fixed list of signed transactions, each mined in its own block (block
 * i + 1, base fee 0, 1 gwei tip), run both by the tracer tests here and, once, by the reference node
 * that produced test/fixtures/traces/*.json (see test/fixtures/traces/README.md).
 */
import { AbiCoder, getCreateAddress, Interface } from 'ethers';
import { artifacts, CHAIN_ID, devWallets, signed } from '../../../helpers/dev-chain.ts';

export const GWEI = 10n ** 9n;

export interface ScenarioTx {
  name: string;
  raw: Uint8Array;
}

const fees = { type: 2, maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI } as const;
const [w0, w1, w2, w3, w4] = devWallets;

export const addresses = {
  target: getCreateAddress({ from: w0.address, nonce: 0 }),
  probe: getCreateAddress({ from: w0.address, nonce: 1 }),
  counter: getCreateAddress({ from: w0.address, nonce: 2 }),
  transient: getCreateAddress({ from: w0.address, nonce: 3 }),
  delegator: w2.address,
};

const iface = (name: string) => new Interface(artifacts[name].abi);
const deployData = (name: string, args: string = '0x') => artifacts[name].bytecode + args.slice(2);

export async function scenario(): Promise<ScenarioTx[]> {
  const probe = iface('TraceProbe');
  const target = iface('TraceTarget');
  const txs: [string, Promise<Uint8Array>][] = [
    ['deploy-target', signed(w0, { ...fees, nonce: 0, gasLimit: 400_000, data: deployData('TraceTarget') })],
    [
      'deploy-probe',
      signed(w0, {
        ...fees,
        nonce: 1,
        gasLimit: 1_000_000,
        data: deployData('TraceProbe', AbiCoder.defaultAbiCoder().encode(['address'], [addresses.target])),
      }),
    ],
    ['deploy-counter', signed(w0, { ...fees, nonce: 2, gasLimit: 300_000, data: deployData('Counter') })],
    [
      'deploy-transient',
      signed(w0, { ...fees, nonce: 3, gasLimit: 300_000, data: deployData('TransientProbe') }),
    ],
    [
      'nested',
      signed(w0, {
        ...fees,
        nonce: 4,
        to: addresses.probe,
        value: 1000n,
        gasLimit: 300_000,
        data: probe.encodeFunctionData('nested', [5n]),
      }),
    ],
    [
      'revert',
      signed(w0, {
        ...fees,
        nonce: 5,
        to: addresses.probe,
        gasLimit: 200_000,
        data: probe.encodeFunctionData('failing'),
      }),
    ],
    [
      'out-of-gas',
      signed(w0, {
        ...fees,
        nonce: 6,
        to: addresses.target,
        gasLimit: 60_000,
        data: target.encodeFunctionData('burn'),
      }),
    ],
    [
      'create-selfdestruct',
      signed(w0, {
        ...fees,
        nonce: 7,
        to: addresses.probe,
        value: 10n,
        gasLimit: 1_000_000,
        data: probe.encodeFunctionData('deploy', ['0x' + '11'.repeat(32)]),
      }),
    ],
    [
      'eip7702',
      signed(w1, {
        ...fees,
        type: 4,
        nonce: 0,
        to: addresses.delegator,
        gasLimit: 200_000,
        data: iface('Counter').encodeFunctionData('increment'),
        authorizationList: [await w2.authorize({ address: addresses.counter, nonce: 0, chainId: CHAIN_ID })],
      }),
    ],
    [
      'transient',
      signed(w1, {
        ...fees,
        nonce: 1,
        to: addresses.transient,
        gasLimit: 100_000,
        data: iface('TransientProbe').encodeFunctionData('storeAndLoad', [42n]),
      }),
    ],
    [
      'refund',
      signed(w0, {
        ...fees,
        nonce: 8,
        to: addresses.target,
        gasLimit: 100_000,
        data: target.encodeFunctionData('store', [0n]),
      }),
    ],
    [
      'overdraw',
      signed(w0, {
        ...fees,
        nonce: 9,
        to: addresses.probe,
        gasLimit: 300_000,
        data: probe.encodeFunctionData('overdraw'),
      }),
    ],
    [
      'callcode',
      signed(w0, {
        ...fees,
        nonce: 10,
        to: addresses.probe,
        gasLimit: 200_000,
        data: probe.encodeFunctionData('codecall', [3n]),
      }),
    ],
    [
      'invalid-opcode',
      signed(w0, {
        ...fees,
        nonce: 11,
        to: addresses.probe,
        gasLimit: 80_000,
        data: probe.encodeFunctionData('invalid'),
      }),
    ],
    ['transfer', signed(w3, { ...fees, nonce: 0, to: w4.address, value: 12345n, gasLimit: 21_000 })],
  ];
  const out: ScenarioTx[] = [];
  for (const [name, raw] of txs) out.push({ name, raw: await raw });
  return out;
}

/**
 * The trace options recorded by the reference node: file name → debug_traceTransaction options and
 * the transactions traced with them (all when absent; the struct logs of the gas-burning loop and of
 * the big deployments are left out to keep the files small).
 */
export const STRUCT_TXS = [
  'callcode',
  'invalid-opcode',
  'refund',
  'overdraw',
  'deploy-target',
  'nested',
  'revert',
  'create-selfdestruct',
  'eip7702',
  'transient',
  'transfer',
];
export const CONFIGS: Record<string, { options: Record<string, unknown>; txs?: string[] }> = {
  'struct-default': { options: {}, txs: STRUCT_TXS },
  'struct-memory-returndata': {
    options: { enableMemory: true, enableReturnData: true },
    txs: ['nested', 'revert'],
  },
  call: { options: { tracer: 'callTracer' } },
  'call-withlog': { options: { tracer: 'callTracer', tracerConfig: { withLog: true } } },
  'call-top-withlog': {
    options: { tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: true } },
  },
  prestate: { options: { tracer: 'prestateTracer' } },
  'prestate-diff': { options: { tracer: 'prestateTracer', tracerConfig: { diffMode: true } } },
  '4byte': { options: { tracer: '4byteTracer' } },
  noop: { options: { tracer: 'noopTracer' } },
};
