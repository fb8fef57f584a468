/** Records and values of an LDIF file (RFC 2849), as the reader returns them. */

/** One attribute value: `name` as written (options included, e.g. `cn;lang-en`), `value` its bytes. */
export interface LdifValue {
  readonly name: string;
  readonly value: Buffer;
}

/** A `control:` line of a change record: controlType OID, criticality, optional controlValue. */
export interface LdifControl {
  readonly type: string;
  readonly critical: boolean;
  readonly value?: Buffer;
}

/** One section of a modify record (`add:` / `delete:` / `replace:` / `increment:` ... `-`). */
export type LdifChange = {
  readonly op: 'add' | 'delete' | 'replace' | 'increment';
  readonly attribute: string;
  readonly values: readonly Buffer[];
};

interface RecordBase {
  readonly dn: string;
  /** 1-based line number of the record's `dn:` line. */
  readonly line: number;
  readonly controls: readonly LdifControl[];
}

export type LdifRecord =
  | (RecordBase & { readonly kind: 'entry'; readonly attributes: readonly LdifValue[] })
  | (RecordBase & { readonly kind: 'add'; readonly attributes: readonly LdifValue[] })
  | (RecordBase & { readonly kind: 'delete' })
  | (RecordBase & { readonly kind: 'modify'; readonly changes: readonly LdifChange[] })
  | (RecordBase & {
      readonly kind: 'modrdn';
      readonly newRdn: string;
      readonly deleteOldRdn: boolean;
      readonly newSuperior?: string;
    });
