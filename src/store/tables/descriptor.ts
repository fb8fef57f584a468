/**
 * A LevelDB database's descriptor: the MANIFEST file naming its tables, and CURRENT naming the
 * MANIFEST (db/version_edit.cc, db/log_writer.cc, db/filename.cc). The MANIFEST written here is a
 * log holding one record, a version edit:
 *
 *   varint tag | value ...   comparator (1), log number (2), next file number (3),
 *                            last sequence (4), and per table: new file (7) with its level,
 *                            number, size, smallest and largest internal keys
 *
 * A log is made of 32 KiB blocks; a record is cut into fragments that fit, each with a header:
 * masked CRC-32C of its type byte and data (u32le), its length (u16le), its type (full, first,
 * middle, last). CURRENT is written to a temporary file and renamed over, as LevelDB does.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Bytes } from './bytes.js';
import { crc32c, maskCrc } from './crc32c.js';
import type { TableMeta } from './table-file.js';

const COMPARATOR = 'leveldb.BytewiseComparator';
const Tag = { Comparator: 1, LogNumber: 2, NextFileNumber: 3, LastSequence: 4, NewFile: 7 } as const;
const Fragment = { Full: 1, First: 2, Middle: 3, Last: 4 } as const;
const LOG_BLOCK = 32768;
const HEADER_BYTES = 7;

export interface Descriptor {
  /** The MANIFEST's own file number. */
  readonly number: number;
  /** Logs numbered below this are not replayed (none is: every key is in the tables). */
  readonly logNumber: number;
  /** The next file number LevelDB may use (above every file named here). */
  readonly nextFile: number;
  readonly lastSequence: number;
  /** The tables and the level they are in. */
  readonly tables: readonly { readonly level: number; readonly table: TableMeta }[];
}

export const tableName = (number: number): string => `${String(number).padStart(6, '0')}.ldb`;
const manifestName = (number: number): string => `MANIFEST-${String(number).padStart(6, '0')}`;

/** The version edit describing the whole database. */
function versionEdit(descriptor: Descriptor): Buffer {
  const edit = new Bytes(1024);
  edit.varint(Tag.Comparator);
  edit.slice(Buffer.from(COMPARATOR));
  edit.varint(Tag.LogNumber);
  edit.varint(descriptor.logNumber);
  edit.varint(Tag.NextFileNumber);
  edit.varint(descriptor.nextFile);
  edit.varint(Tag.LastSequence);
  edit.varint(descriptor.lastSequence);
  for (const { level, table } of descriptor.tables) {
    edit.varint(Tag.NewFile);
    edit.varint(level);
    edit.varint(table.number);
    edit.varint(table.size);
    edit.slice(table.smallest);
    edit.slice(table.largest);
  }
  return Buffer.from(edit.view);
}

/** A log holding `record`, cut into fragments that fit its blocks. */
function logOf(record: Buffer): Buffer {
  const out = new Bytes(record.length + 1024);
  let offset = 0;
  let first = true;
  do {
    const left = LOG_BLOCK - (out.length % LOG_BLOCK);
    if (left < HEADER_BYTES) for (let i = 0; i < left; i += 1) out.byte(0);
    const room = LOG_BLOCK - (out.length % LOG_BLOCK) - HEADER_BYTES;
    const length = Math.min(room, record.length - offset);
    const last = offset + length === record.length;
    const type = first ? (last ? Fragment.Full : Fragment.First) : (last ? Fragment.Last : Fragment.Middle);
    const typeByte = Buffer.from([type]);
    out.fixed32(maskCrc(crc32c(record, offset, offset + length, crc32c(typeByte))));
    out.byte(length & 0xff);
    out.byte(length >>> 8);
    out.byte(type);
    out.append(record, offset, offset + length);
    offset += length;
    first = false;
  } while (offset < record.length);
  return Buffer.from(out.view);
}

/** Writes the MANIFEST and makes it current, each synced (the directory too). */
export function writeDescriptor(dir: string, descriptor: Descriptor): void {
  const name = manifestName(descriptor.number);
  writeSynced(join(dir, name), logOf(versionEdit(descriptor)));
  const temporary = join(dir, `${String(descriptor.number).padStart(6, '0')}.dbtmp`);
  writeSynced(temporary, Buffer.from(`${name}\n`));
  renameSync(temporary, join(dir, 'CURRENT'));
  syncDirectory(dir);
}

function writeSynced(path: string, data: Buffer): void {
  synced(path, 'w', (fd) => writeFileSync(fd, data));
}

export function syncDirectory(dir: string): void {
  synced(dir, 'r', () => {});
}

/** Opens `path`, hands the descriptor to `use`, syncs it to disk and closes it. */
function synced(path: string, flags: string, use: (fd: number) => void): void {
  const fd = openSync(path, flags);
  try {
    use(fd);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
