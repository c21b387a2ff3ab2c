/**
 * The chaind repository's solc-js (its `solc` devDependency) behind the two calls forge makes of a
 * native solc: `--version`, and a standard-JSON compilation read from stdin.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const solc = createRequire(new URL('../../package.json', import.meta.url))('solc');

if (process.argv.includes('--version')) {
  // forge reads the version from a native build's banner
  const version = solc.version().replace('Emscripten.clang', 'Linux.g++');
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${version}\n`);
} else {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => (input += chunk));
  process.stdin.on('end', () => {
    const findImports = (path) => {
      try {
        return { contents: readFileSync(resolve(path), 'utf8') };
      } catch (err) {
        return { error: String(err) };
      }
    };
    process.stdout.write(solc.compile(input, { import: findImports }));
  });
}
