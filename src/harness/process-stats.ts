/** What a server process has used, read from /proc (Linux): CPU seconds and resident memory. */
import { readFileSync } from 'node:fs';

/** The fields of /proc/PID/stat after the command name, counted from 0 (state is 0, utime 11). */
const statFields = (pid: number | 'self'): string[] => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * User + system CPU seconds of this process's children that have ended and been waited for (Node
 * waits for every child it spawns): the difference across a child's run is what that child used,
 * its threads included.
 */
export function childCpuSeconds(): number {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Resident set size in bytes (VmRSS). */
export function residentBytes(pid: number): number {
  return statusKb(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS') * 1024;
}

/** The resident set in bytes, split: anonymous memory (heaps, caches), file pages mapped (a database's mmap'd files, the binary), shared memory. */
export interface ResidentParts {
  readonly total: number;
  readonly anon: number;
  readonly file: number;
  readonly shmem: number;
}

export function residentParts(pid: number): ResidentParts {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => statusKb(status, field) * 1024;
  return { total: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), shmem: kb('RssShmem') };
}

function statusKb(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  return match ? Number(match[1]) : 0;
}
