/**
 * A chunk's outcomes as a worker thread posts them to the main thread (import-worker.ts to
 * import-workers.ts): per record its line, kind and outcome; every operation's key in one array
 * and every value in one transferred buffer, so a chunk of a thousand entries is a few objects to
 * copy rather than tens of thousands.
 */
import type { Entry } from '../store/entry.js';
import { put, type BatchOp } from '../store/index.js';
import { ImportProblem, type Outcome } from './import-plan.js';
import type { LdifRecord } from './types.js';

type Kind = LdifRecord['kind'];

/** One record's outcome: planned (`ops` operations, in order), a problem, or an entry the main thread must hash. */
export type WireOutcome =
  | { readonly line: number; readonly kind?: Kind; readonly dn: string; readonly keys: readonly string[]; readonly ops: number }
  | { readonly line: number; readonly kind?: Kind; readonly dn?: string; readonly problem: string }
  | { readonly line: number; readonly kind: Kind; readonly hash: Entry };

/** An error that ended the chunk's reading (a record too large to hold, or a fault): `line` for an LdifError. */
export interface WireFatal {
  readonly line?: number;
  readonly message: string;
}

export interface WireChunk {
  readonly outcomes: WireOutcome[];
  readonly opKeys: string[];
  readonly valueLengths: Int32Array;
  readonly values: Uint8Array;
  readonly fatal?: WireFatal;
}

/** What the main thread makes of a wire outcome: an outcome, or an entry to hash and plan. */
export type Received = { readonly kind?: Kind; readonly outcome: Outcome } | { readonly kind: Kind; readonly line: number; readonly hash: Entry };

const EMPTY = Buffer.alloc(0);

/** Collects a chunk's outcomes in a worker thread. */
export class ChunkPacker {
  private readonly outcomes: WireOutcome[] = [];
  private readonly opKeys: string[] = [];
  private readonly lengths: number[] = [];
  private readonly parts: Buffer[] = [];
  private bytes = 0;

  add(outcome: Outcome, kind: Kind | undefined): void {
    if (!outcome.ok) {
      const { line, dn, reason } = outcome.problem;
      this.outcomes.push({ line, kind, dn, problem: reason });
      return;
    }
    const { plan } = outcome;
    for (const op of plan.ops) this.addOp(op);
    this.outcomes.push({ line: outcome.line, kind, dn: plan.dn, keys: plan.keys, ops: plan.ops.length });
  }

  addHash(line: number, kind: Kind, entry: Entry): void {
    this.outcomes.push({ line, kind, hash: entry });
  }

  private addOp(op: BatchOp): void {
    if (op.type !== 'put') throw new Error('a bulk load only puts');
    this.opKeys.push(op.key);
    this.lengths.push(op.value.length);
    if (op.value.length === 0) return;
    this.parts.push(op.value);
    this.bytes += op.value.length;
  }

  /** The chunk, and the buffers to transfer with it. */
  finish(fatal?: WireFatal): { chunk: WireChunk; transfer: ArrayBuffer[] } {
    const values = new Uint8Array(new ArrayBuffer(this.bytes));
    let offset = 0;
    for (const part of this.parts) {
      values.set(part, offset);
      offset += part.length;
    }
    const valueLengths = Int32Array.from(this.lengths);
    const chunk = { outcomes: this.outcomes, opKeys: this.opKeys, valueLengths, values, ...(fatal ? { fatal } : {}) };
    return { chunk, transfer: [values.buffer, valueLengths.buffer as ArrayBuffer] };
  }
}

/** A cloned value (a Uint8Array after the copy) as a Buffer over the same bytes. */
const asBuffer = (value: Uint8Array): Buffer => Buffer.from(value.buffer, value.byteOffset, value.byteLength);

function receivedEntry(entry: Entry): Entry {
  return { dn: entry.dn, attributes: entry.attributes.map((attribute) => ({ name: attribute.name, values: attribute.values.map(asBuffer) })) };
}

/** A chunk's outcomes on the main thread, in order; planned entries get their operations back. */
export function unpackChunk(chunk: WireChunk): Received[] {
  const values = asBuffer(chunk.values);
  let op = 0;
  let offset = 0;
  const takeOps = (count: number): BatchOp[] => {
    const ops: BatchOp[] = [];
    for (const end = op + count; op < end; op++) {
      const length = chunk.valueLengths[op]!;
      ops.push(put(chunk.opKeys[op]!, length === 0 ? EMPTY : values.subarray(offset, offset + length)));
      offset += length;
    }
    return ops;
  };
  return chunk.outcomes.map((wire): Received => {
    if ('hash' in wire) return { kind: wire.kind, line: wire.line, hash: receivedEntry(wire.hash) };
    if ('problem' in wire) return { kind: wire.kind, outcome: { ok: false, problem: new ImportProblem(wire.line, wire.dn, wire.problem) } };
    return { kind: wire.kind, outcome: { ok: true, line: wire.line, plan: { dn: wire.dn, keys: wire.keys, ops: takeOps(wire.ops) } } };
  });
}
