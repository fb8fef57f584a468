/**
 * The worker threads of import-ldif (import-worker.ts), seen from the main thread: parts of the
 * file handed out in turn, each answered by its worker in the order given, so the caller gets
 * every part's outcomes back in file order.
 */
import { Worker } from 'node:worker_threads';
import type { WireChunk } from './import-wire.js';
import type { LdifPart } from './import-chunks.js';

/** What every worker is started with: how to plan (PlanContext's parts), the schema files, the scheme names. */
export interface PlanSetup {
  readonly actor: string;
  readonly indexed: readonly string[];
  readonly schemaCheck: boolean;
  /** The --schema files in force (the built-in schemas are always loaded). */
  readonly schemaFiles: readonly string[];
  /** The scheme registry's names: a value in another `{SCHEME}` is refused. */
  readonly schemeNames: readonly string[];
  readonly maxRecordBytes: number;
}

/** One part as it is posted (its bytes copied into a buffer of their own and transferred). */
export interface PlanJob {
  readonly bytes: Uint8Array;
  readonly firstLine: number;
  readonly startOfFile: boolean;
}

interface Waiter {
  resolve(chunk: WireChunk): void;
  reject(error: Error): void;
}

const WORKER_ENTRY = new URL('./import-worker.js', import.meta.url);

export class PlanWorkers {
  private readonly workers: Worker[] = [];
  private readonly waiting: Waiter[][] = [];
  private next = 0;
  private failure: Error | undefined;

  constructor(count: number, setup: PlanSetup) {
    for (let i = 0; i < count; i++) this.startWorker(i, setup);
  }

  private startWorker(index: number, setup: PlanSetup): void {
    const worker = new Worker(WORKER_ENTRY, { workerData: setup });
    this.workers.push(worker);
    this.waiting.push([]);
    worker.on('message', (chunk: WireChunk) => this.waiting[index]!.shift()?.resolve(chunk));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`an import worker thread exited (${code})`)));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const queue of this.waiting) for (const waiter of queue.splice(0)) waiter.reject(this.failure);
  }

  /** The outcomes of one part's records, in order. */
  plan(part: LdifPart): Promise<WireChunk> {
    if (this.failure) return Promise.reject(this.failure);
    const index = this.next++ % this.workers.length;
    const bytes = new Uint8Array(part.bytes);
    const job: PlanJob = { bytes, firstLine: part.firstLine, startOfFile: part.startOfFile };
    return new Promise<WireChunk>((resolve, reject) => {
      this.waiting[index]!.push({ resolve, reject });
      this.workers[index]!.postMessage(job, [bytes.buffer]);
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the import worker threads were stopped');
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
