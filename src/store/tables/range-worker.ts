/** A worker thread writing one range of a load's tables (ranges.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { KeyOrderError } from './load.js';
import { loadRange, type RangeJob, type RangeResult } from './ranges.js';

function run(job: RangeJob): RangeResult {
  try {
    return { tables: loadRange(job) };
  } catch (error) {
    return { error: (error as Error).message, keyOrder: error instanceof KeyOrderError };
  }
}

parentPort?.postMessage(run(workerData as RangeJob));
