/** How the store compares values under an equality matching rule (src/store/normalize.ts implements each). */
export type Equality =
  | 'caseIgnore' | 'caseExact' | 'octet' | 'dn' | 'integer' | 'telephone' | 'generalizedTime' | 'objectIdentifier';
