#!/usr/bin/env node
import { endWhenReaderGoes } from './early-end.js';
import { runCommandLine } from './run-command-line.js';

endWhenReaderGoes(process.stdout);
process.exitCode = await runCommandLine(process.argv.slice(2));
