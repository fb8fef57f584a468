/** Errors of the directory, each carrying the LDAP result code a client should see. */

export const ResultCode = {
  success: 0,
  operationsError: 1,
  protocolError: 2,
  timeLimitExceeded: 3,
  sizeLimitExceeded: 4,
  compareFalse: 5,
  compareTrue: 6,
  authMethodNotSupported: 7,
  adminLimitExceeded: 11,
  unavailableCriticalExtension: 12,
  confidentialityRequired: 13,
  noSuchAttribute: 16,
  undefinedAttributeType: 17,
  constraintViolation: 19,
  attributeOrValueExists: 20,
  invalidAttributeSyntax: 21,
  noSuchObject: 32,
  invalidDnSyntax: 34,
  invalidCredentials: 49,
  insufficientAccessRights: 50,
  busy: 51,
  unavailable: 52,
  unwillingToPerform: 53,
  namingViolation: 64,
  objectClassViolation: 65,
  notAllowedOnNonLeaf: 66,
  notAllowedOnRdn: 67,
  entryAlreadyExists: 68,
  other: 80,
} as const;

export type ResultCodeName = keyof typeof ResultCode;

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
