/**
 * Snappy, as LevelDB compresses its blocks, through the native/snappy addon (libsnappy). Without
 * the addon a bulk load does not write tables itself (sorted-load.ts goes through LevelDB).
 */
import { loadAddon } from '../../native-addon.js';

interface SnappyAddon {
  compressInto(input: Uint8Array, output: Uint8Array): number;
  maxCompressedLength(length: number): number;
}

const addon = loadAddon<SnappyAddon>('snappy', 'snappy');

export const snappyAvailable = (): boolean => addon !== undefined;

/** Compresses blocks into a buffer of its own (a view valid until the next call). */
export class SnappyCompressor {
  private output = Buffer.alloc(0);
  private readonly snappy: SnappyAddon;

  constructor() {
    if (!addon) throw new Error('the native/snappy addon is not built (npm ci builds it; it needs libsnappy-dev)');
    this.snappy = addon;
  }

  compress(input: Uint8Array): Buffer {
    const bound = this.snappy.maxCompressedLength(input.length);
    if (this.output.length < bound) this.output = Buffer.allocUnsafe(bound * 2);
    return this.output.subarray(0, this.snappy.compressInto(input, this.output));
  }
}
