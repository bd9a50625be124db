#!/usr/bin/env node
import { runCommandLine } from './run-command-line.js';

process.exitCode = await runCommandLine(process.argv.slice(2));
