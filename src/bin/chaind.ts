#!/usr/bin/env node
import { main } from '../cli/main.ts';

await main(process.argv);
