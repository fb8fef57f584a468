/** A worker thread writing one range of a load's tables (ranges.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { loadRange, rangeFailure, type RangeJob, type RangeResult } from './ranges.js';

function run(job: RangeJob): RangeResult {
  try {
    return { tables: loadRange(job) };
  } catch (error) {
    return rangeFailure(error);
  }
}

parentPort?.postMessage(run(workerData as RangeJob));
