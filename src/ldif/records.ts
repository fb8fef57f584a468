/**
 * One record's fields to an LdifRecord (a content record or a change: add, delete, modify,
 * modrdn/moddn, with controls), and the whole-file rules (version first, content and changes not
 * mixed). reader.ts feeds it.
 */
import { LdifError, quoteLine } from './errors.js';
import type { LdifChange, LdifControl, LdifRecord, LdifValue } from './types.js';
import type { Field } from './lines.js';
import { ATTRIBUTE_DESCRIPTION, fieldValue, textOf, controlParts, type FileValues } from './fields.js';

class FieldCursor {
  private index = 0;

  constructor(private readonly fields: readonly Field[]) {}

  next(): Field | undefined {
    return this.fields[this.index++];
  }

  nextIs(lowerName: string): boolean {
    return this.fields[this.index]?.lower === lowerName;
  }

  /** The next field, which must be `lowerName:`; `line` is where to point when it is missing. */
  expect(lowerName: string, line: number): Field {
    const field = this.next();
    if (field === undefined) throw new LdifError(line, `expected a "${lowerName}:" line, but the record ends`);
    if (field.lower !== lowerName) throw new LdifError(field.line, `expected "${lowerName}:", got ${quoteLine(field.name)}`);
    return field;
  }

  expectEnd(what: string): void {
    const field = this.next();
    if (field !== undefined) throw new LdifError(field.line, `${what} takes no further lines, got ${quoteLine(field.name)}`);
  }
}

// ---------------------------------------------------------------- records

type RecordHead = { readonly dn: string; readonly line: number; readonly controls: readonly LdifControl[] };

const MODIFY_OPS: Readonly<Record<string, LdifChange['op']>> = {
  add: 'add', delete: 'delete', replace: 'replace', increment: 'increment',
};

/** Turns one record's fields into an LdifRecord; `files` holds the contents of its `:<` values. */
export class RecordParser {
  constructor(private readonly files: FileValues) {}

  parse(fields: readonly Field[]): LdifRecord {
    const cursor = new FieldCursor(fields);
    const dnField = cursor.next()!;
    if (dnField.lower !== 'dn') {
      throw new LdifError(dnField.line, `a record must start with "dn:", got ${quoteLine(dnField.source)}`);
    }
    const controls: LdifControl[] = [];
    let lastControl: Field | undefined;
    while (cursor.nextIs('control')) {
      lastControl = cursor.next()!;
      controls.push(this.control(lastControl));
    }
    const head: RecordHead = { dn: textOf(dnField), line: dnField.line, controls };
    if (cursor.nextIs('changetype')) return this.change(head, cursor);
    if (lastControl) throw new LdifError(lastControl.line, '"control:" lines must be followed by "changetype:"');
    return { kind: 'entry', ...head, attributes: this.attributes(cursor, dnField.line) };
  }

  private change(head: RecordHead, cursor: FieldCursor): LdifRecord {
    const typeField = cursor.next()!;
    const type = textOf(typeField);
    switch (type.toLowerCase()) {
      case 'add':
        return { kind: 'add', ...head, attributes: this.attributes(cursor, typeField.line) };
      case 'delete':
        cursor.expectEnd('a delete record');
        return { kind: 'delete', ...head };
      case 'modify':
        return { kind: 'modify', ...head, changes: this.changes(cursor) };
      case 'modrdn':
      case 'moddn':
        return { kind: 'modrdn', ...head, ...this.rename(cursor, typeField.line) };
      default:
        throw new LdifError(typeField.line, `changetype ${quoteLine(type)} is not add, delete, modify, modrdn or moddn`);
    }
  }

  private attributes(cursor: FieldCursor, line: number): LdifValue[] {
    const attributes: LdifValue[] = [];
    for (let field = cursor.next(); field !== undefined; field = cursor.next()) {
      if (field.name === '-') throw new LdifError(field.line, 'expected "attribute: value", got "-"');
      attributes.push({ name: field.name, value: fieldValue(field, this.files) });
    }
    if (attributes.length === 0) throw new LdifError(line, 'the record has no "attribute: value" lines');
    return attributes;
  }

  private changes(cursor: FieldCursor): LdifChange[] {
    const changes: LdifChange[] = [];
    for (let field = cursor.next(); field !== undefined; field = cursor.next()) {
      changes.push(this.modification(field, cursor));
    }
    return changes;
  }

  /** One `op: attribute` section; its values must name the same attribute; `-` (or the record's end) ends it. */
  private modification(head: Field, cursor: FieldCursor): LdifChange {
    const op = Object.hasOwn(MODIFY_OPS, head.lower) ? MODIFY_OPS[head.lower]! : undefined;
    if (op === undefined) {
      throw new LdifError(head.line, `expected "add:", "delete:", "replace:" or "increment:", got ${quoteLine(head.name)}`);
    }
    const attribute = textOf(head);
    if (!ATTRIBUTE_DESCRIPTION.test(attribute)) {
      throw new LdifError(head.line, `${quoteLine(attribute)} is not an attribute description`);
    }
    const values: Buffer[] = [];
    const lower = attribute.toLowerCase();
    for (let field = cursor.next(); field !== undefined && field.name !== '-'; field = cursor.next()) {
      if (field.lower !== lower) {
        throw new LdifError(field.line, `expected "-" or a "${attribute}" value in the "${op}: ${attribute}" section, got ${quoteLine(field.name)}`);
      }
      values.push(fieldValue(field, this.files));
    }
    if (op === 'increment' && values.length !== 1) {
      throw new LdifError(head.line, `"increment: ${attribute}" needs exactly one value, got ${values.length}`);
    }
    return { op, attribute, values };
  }

  private rename(cursor: FieldCursor, line: number): { newRdn: string; deleteOldRdn: boolean; newSuperior?: string } {
    const newRdnField = cursor.expect('newrdn', line);
    const flagField = cursor.expect('deleteoldrdn', newRdnField.line);
    const flag = textOf(flagField);
    if (flag !== '0' && flag !== '1') throw new LdifError(flagField.line, `deleteoldrdn must be 0 or 1, got ${quoteLine(flag)}`);
    const rename = { newRdn: textOf(newRdnField), deleteOldRdn: flag === '1' };
    if (!cursor.nextIs('newsuperior')) {
      cursor.expectEnd('a modrdn record');
      return rename;
    }
    const newSuperior = textOf(cursor.next()!);
    cursor.expectEnd('a modrdn record');
    return { ...rename, newSuperior };
  }

  private control(field: Field): LdifControl {
    const { type, critical, value } = controlParts(field);
    return value === undefined ? { type, critical } : { type, critical, value: fieldValue(value, this.files) };
  }
}

// ---------------------------------------------------------------- the file

/** The whole-file rules: optional `version: 1` first, and content and change records not mixed. */
export class FileState {
  private started: boolean;
  private contentFile: boolean | undefined;

  /**
   * `startOfFile` false: the lines are a later part of a file (no version line to drop);
   * `checkKinds` false: the caller applies the mixing rule (import's worker threads: in file order).
   */
  constructor(startOfFile = true, private readonly checkKinds = true) {
    this.started = !startOfFile;
  }

  /** Drops a leading `version:` line from the first record (checking it says 1). */
  withoutVersion(fields: Field[]): Field[] {
    if (this.started) return fields;
    this.started = true;
    const first = fields[0]!;
    if (first.lower !== 'version') return fields;
    const version = textOf(first);
    if (version !== '1') throw new LdifError(first.line, `unsupported LDIF version ${quoteLine(version)} (only version 1 exists)`);
    return fields.slice(1);
  }

  check(record: Pick<LdifRecord, 'kind' | 'line'>): void {
    if (!this.checkKinds) return;
    const content = record.kind === 'entry';
    this.contentFile ??= content;
    if (content !== this.contentFile) {
      const [found, expected] = content ? ['a content record', 'change records'] : ['a change record', 'content records'];
      throw new LdifError(record.line, `${found} in a file of ${expected} (RFC 2849 does not allow mixing them)`);
    }
  }
}
