#!/usr/bin/env node
import { captureEarlySignals } from '../util/early-signals.ts';
import { unsupportedNode } from '../util/node-version.ts';

const unsupported = unsupportedNode(process.versions.node);
if (unsupported) {
  process.stderr.write(unsupported + '\n');
  process.exit(1);
}
captureEarlySignals();
const { main } = await import('../cli/main.ts');
await main(process.argv);
