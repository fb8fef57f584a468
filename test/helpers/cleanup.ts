/** Cleanups at process exit (shared with the benchmarks). */
export { cancelOnExit, onExit } from '../../src/bench/exit-cleanup.js';
