/** Errors of the directory, each carrying the LDAP result code a client should see. */
import { ResultCode, type ResultCodeName } from '../protocol/result-codes.js';

export class DirectoryError extends Error {
  override name = 'DirectoryError';
  readonly code: number;

  constructor(readonly codeName: ResultCodeName, message: string, readonly matchedDn?: string) {
    super(message);
    this.code = ResultCode[codeName];
  }
}

/** The database cannot be used: wrong version, locked by another process, unreadable. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** A write read a local copy that was behind its system of record: it runs again once the copy catches up (DirectoryStore.retrying). */
export class StaleCopy extends Error {
  override name = 'StaleCopy';
}
