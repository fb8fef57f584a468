/**
 * Reading a test server's JSON log: its records, and a wait for one that a test expects. A line
 * can be written after the client has seen the answer it is about (the access log is written once
 * the answer is sent), so a test waits for the line rather than reading the log at once.
 */
import type { LeveldapServer } from './leveldap-server.js';

export type LogRecord = Readonly<Record<string, unknown>>;

/** The JSON records of the lines logged so far, in order (other lines skipped). */
export function logRecords(server: LeveldapServer): LogRecord[] {
  return server.logs().flatMap((line) => {
    try {
      return [JSON.parse(line) as LogRecord];
    } catch {
      return []; // not a JSON line
    }
  });
}

/** The access log's lines ("operation") so far. */
export function operationRecords(server: LeveldapServer): LogRecord[] {
  return logRecords(server).filter((record) => record['msg'] === 'operation');
}

/** The first access-log line `found` accepts, waiting up to `timeoutMs` for it; throws if none came. */
export async function waitForOperation(server: LeveldapServer, found: (record: LogRecord) => boolean, timeoutMs = 5000): Promise<LogRecord> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const record = operationRecords(server).find(found);
    if (record) return record;
    if (Date.now() > deadline) throw new Error(`no matching access-log line within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
