#!/usr/bin/env node
import { main } from '../dist/src/cli/authrate.js';

main(process.argv);
