/**
 * A worker thread of import-ldif: reads the parts of the file it is given (import-chunks.ts),
 * plans each record (import-plan.ts: the entry, its schema check, its keys and operations) and
 * posts the outcomes back in order (import-wire.ts). Entries with plain passwords go back to be
 * hashed by the main thread, which holds the scheme registry.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { classifyByNames } from '../password/scheme-name.js';
import type { PlanContext } from '../store/bulk-plan.js';
import { buildSchema, installSchema } from '../store/schema/installed.js';
import { errorMessage } from '../errors.js';
import { LdifError } from './errors.js';
import { failed, ldifProblem, planned, toEntry } from './import-plan.js';
import { ChunkPacker, type WireChunk } from './import-wire.js';
import type { PlanSetup, PlanJob } from './import-workers.js';
import { needsHashing, type PasswordClassifier } from './passwords.js';
import { readLdifBatches } from './reader.js';
import type { LdifRecord } from './types.js';

interface Planner {
  readonly context: PlanContext;
  readonly classifier: PasswordClassifier;
  readonly maxRecordBytes: number;
}

function planItem(item: LdifRecord | LdifError, packer: ChunkPacker, planner: Planner): void {
  if (item instanceof LdifError) {
    packer.add(ldifProblem(item), undefined);
    return;
  }
  try {
    const entry = toEntry(item);
    if (needsHashing(entry, planner.classifier)) packer.addHash(item.line, item.kind, entry);
    else packer.add(planned(item.line, entry, planner.context), item.kind);
  } catch (error) {
    packer.add(failed(item.line, item.dn, error), item.kind);
  }
}

async function planPart(job: PlanJob, planner: Planner): Promise<{ chunk: WireChunk; transfer: ArrayBuffer[] }> {
  const packer = new ChunkPacker();
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  try {
    const part = { firstLine: job.firstLine, startOfFile: job.startOfFile };
    for await (const items of readLdifBatches([bytes], { keepErrors: true, maxRecordBytes: planner.maxRecordBytes, part })) {
      for (const item of items) planItem(item, packer, planner);
    }
  } catch (error) {
    return packer.finish(error instanceof LdifError ? { line: error.line, message: error.message } : { message: errorMessage(error) });
  }
  return packer.finish();
}

function start(setup: PlanSetup): void {
  installSchema(buildSchema(setup.schemaFiles));
  const planner: Planner = {
    context: { actor: setup.actor, indexed: new Set(setup.indexed), schemaCheck: setup.schemaCheck },
    classifier: { classify: classifyByNames(setup.schemeNames) },
    maxRecordBytes: setup.maxRecordBytes,
  };
  let queue = Promise.resolve();
  parentPort!.on('message', (job: PlanJob) => {
    queue = queue.then(() => planPart(job, planner)).then(({ chunk, transfer }) => parentPort!.postMessage(chunk, transfer));
  });
}

start(workerData as PlanSetup);
