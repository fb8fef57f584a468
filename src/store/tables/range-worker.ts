/** A worker thread writing ranges of a load's tables, one job at a time, as ranges.ts hands them over. */
import { parentPort } from 'node:worker_threads';
import { loadRange, rangeFailure, type RangeJob, type RangeResult } from './ranges.js';

function run(job: RangeJob): RangeResult {
  try {
    return { tables: loadRange(job) };
  } catch (error) {
    return rangeFailure(error);
  }
}

parentPort?.on('message', (job: RangeJob) => parentPort?.postMessage(run(job)));
