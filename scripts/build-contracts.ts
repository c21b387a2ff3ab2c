/**
 * Compiles the Solidity fixtures in test/fixtures/contracts/ with solc-js (a devDependency) and writes
 * their ABI and bytecode to test/fixtures/contracts/artifacts.json, which the tests and benchmarks
 * load. Run after changing a contract: `node scripts/build-contracts.ts`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import solc from 'solc';

const dir = resolve(import.meta.dirname, '../test/fixtures/contracts');
const sources = Object.fromEntries(
  readdirSync(dir)
    .filter((f) => f.endsWith('.sol'))
    .map((f) => [f, { content: readFileSync(join(dir, f), 'utf8') }]),
);
const input = {
  language: 'Solidity',
  sources,
  settings: {
    evmVersion: 'prague',
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
if (errors.length > 0) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const artifacts: Record<string, unknown> = { compiler: solc.version() };
for (const file of Object.keys(output.contracts)) {
  for (const [name, c] of Object.entries<any>(output.contracts[file])) {
    artifacts[name] = {
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    };
  }
}
writeFileSync(join(dir, 'artifacts.json'), JSON.stringify(artifacts, null, 2) + '\n');
console.log(`compiled ${Object.keys(artifacts).length - 1} contract(s) with solc ${solc.version()}`);
