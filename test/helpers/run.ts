/** Run a program to completion and capture its output (shared with the benchmarks). */
export { collect, run, type RunResult } from '../../src/bench/run.js';
