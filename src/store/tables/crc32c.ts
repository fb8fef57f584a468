/**
 * CRC-32C (Castagnoli), as LevelDB checksums its blocks and log records (util/crc32c.h), with its
 * mask for checksums stored beside the data they cover. Table-driven, eight bytes a step
 * ("slicing by 8"). Pure.
 */

const POLYNOMIAL = 0x82f63b78;
const MASK_DELTA = 0xa282ead8;

/** TABLES[k][b]: the CRC of byte b followed by k zero bytes. */
const TABLES: Uint32Array[] = buildTables();

function buildTables(): Uint32Array[] {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  const first = tables[0]!;
  for (let byte = 0; byte < 256; byte += 1) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ POLYNOMIAL : crc >>> 1;
    first[byte] = crc >>> 0;
  }
  for (let k = 1; k < 8; k += 1) {
    const previous = tables[k - 1]!;
    const table = tables[k]!;
    for (let byte = 0; byte < 256; byte += 1) table[byte] = (previous[byte]! >>> 8) ^ first[previous[byte]! & 0xff]!;
  }
  return tables;
}

/** The CRC-32C of `data[start, end)`, continuing `crc` (the CRC of what came before it; 0 for none). */
export function crc32c(data: Uint8Array, start = 0, end = data.length, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let c = ~crc >>> 0;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const low = (c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))) >>> 0;
    c = t7[low & 0xff]! ^ t6[(low >>> 8) & 0xff]! ^ t5[(low >>> 16) & 0xff]! ^ t4[low >>> 24]!
      ^ t3[data[i + 4]!]! ^ t2[data[i + 5]!]! ^ t1[data[i + 6]!]! ^ t0[data[i + 7]!]!;
  }
  for (; i < end; i += 1) c = t0[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** A CRC as LevelDB stores it next to the data it covers (so that a CRC of data holding CRCs stays meaningful). */
export function maskCrc(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;
}
