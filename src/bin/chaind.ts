#!/usr/bin/env node
import { captureEarlySignals } from '../util/early-signals.ts';

captureEarlySignals();
const { main } = await import('../cli/main.ts');
await main(process.argv);
