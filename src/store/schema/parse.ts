/**
 * Schema definitions as people write them: RFC 4512 section 4.1 descriptions of attribute types
 * and object classes, in OpenLDAP's `.schema` file syntax (`attributetype ( ... )`,
 * `objectclass ( ... )`, `objectidentifier NAME OID` macros, `#` comments, continuation lines
 * that begin with white space) or in its LDIF form (`olcAttributeTypes: ( ... )`, `{n}` prefixes,
 * base64 values). Pure: text in, descriptions out; a SchemaSyntaxError names the line and why.
 */

export type Usage = 'userApplications' | 'directoryOperation' | 'distributedOperation' | 'dSAOperation';
export type ClassKind = 'ABSTRACT' | 'STRUCTURAL' | 'AUXILIARY';

export interface AttributeTypeDescription {
  readonly oid: string;
  readonly names: readonly string[];
  readonly description?: string;
  readonly obsolete: boolean;
  readonly sup?: string;
  readonly equality?: string;
  readonly ordering?: string;
  readonly substr?: string;
  readonly syntax?: string;
  /** The upper bound after the syntax OID ({64}), when given. */
  readonly syntaxLength?: number;
  readonly singleValue: boolean;
  readonly collective: boolean;
  readonly noUserModification: boolean;
  readonly usage: Usage;
  /** X- extensions, e.g. X-ORIGIN, with their values. */
  readonly extensions: Readonly<Record<string, readonly string[]>>;
  /** Where it was defined ("core.ts line 12"), for error messages. */
  readonly source: string;
}

export interface ObjectClassDescription {
  readonly oid: string;
  readonly names: readonly string[];
  readonly description?: string;
  readonly obsolete: boolean;
  readonly sup: readonly string[];
  readonly kind: ClassKind;
  readonly must: readonly string[];
  readonly may: readonly string[];
  readonly extensions: Readonly<Record<string, readonly string[]>>;
  readonly source: string;
}

/** An `ldapsyntax` a schema file defines (OpenLDAP's extension): values are checked as X-SUBST's syntax, if it names one. */
export interface SyntaxDescription {
  readonly oid: string;
  readonly description?: string;
  readonly substitute?: string;
  readonly source: string;
}

export interface SchemaDefinitions {
  readonly attributeTypes: readonly AttributeTypeDescription[];
  readonly objectClasses: readonly ObjectClassDescription[];
  readonly syntaxes: readonly SyntaxDescription[];
}

/** A definition that does not parse: the file, the line it starts on, and why. */
export class SchemaSyntaxError extends Error {
  override name = 'SchemaSyntaxError';
  constructor(readonly file: string, readonly line: number, readonly reason: string) {
    super(`${file} line ${line}: ${reason}`);
  }
}

type Token = { readonly kind: 'open' | 'close' | 'dollar' } | { readonly kind: 'quoted' | 'word'; readonly text: string };

/** RFC 4512's qdstring escapes: \27 is a quote, \5C (or \5c) a backslash. */
function unescapeQuoted(text: string): string {
  return text.replace(/\\(27|5[cC])/g, (_match, code: string) => (code === '27' ? "'" : '\\'));
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\()|(\))|(\$)|'((?:[^'\\]|\\.)*)'|([^\s()$']+))/gy;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) throw new Error(`cannot read ${JSON.stringify(text.slice(at, at + 20))}`);
    at = pattern.lastIndex;
    if (match[1]) tokens.push({ kind: 'open' });
    else if (match[2]) tokens.push({ kind: 'close' });
    else if (match[3]) tokens.push({ kind: 'dollar' });
    else if (match[4] !== undefined) tokens.push({ kind: 'quoted', text: unescapeQuoted(match[4]) });
    else tokens.push({ kind: 'word', text: match[5]! });
  }
  return tokens;
}

/** Reads the tokens of one `( ... )` description in order. */
class Reader {
  private at = 0;
  constructor(private readonly tokens: readonly Token[], private readonly macros: ReadonlyMap<string, string>) {}

  done(): boolean {
    return this.at >= this.tokens.length;
  }

  next(): Token {
    const token = this.tokens[this.at++];
    if (!token) throw new Error('the description ends too early (a missing ")"?)');
    return token;
  }

  peek(): Token | undefined {
    return this.tokens[this.at];
  }

  expect(kind: 'open' | 'close'): void {
    const token = this.next();
    if (token.kind !== kind) throw new Error(`expected "${kind === 'open' ? '(' : ')'}"`);
  }

  /** A bare word, or one in quotes (OpenLDAP takes SYNTAX '1.3.6...' and SUP 'name'). */
  word(what: string): string {
    const token = this.next();
    if (token.kind !== 'word' && token.kind !== 'quoted') throw new Error(`expected ${what}`);
    return token.text;
  }

  keyword(): string {
    const token = this.next();
    if (token.kind !== 'word') throw new Error('expected a keyword');
    return token.text.toUpperCase();
  }

  /** An OID, numeric or a macro ("NetscapeDS:1", "MyOID") expanded. */
  oid(what: string): string {
    return expandOid(this.word(what), this.macros);
  }

  quoted(what: string): string {
    const token = this.next();
    if (token.kind !== 'quoted') throw new Error(`expected ${what} in quotes`);
    return token.text;
  }

  get oidMacros(): ReadonlyMap<string, string> {
    return this.macros;
  }

  /** qdescrs: 'a' or ( 'a' 'b' ). */
  quotedList(what: string): string[] {
    if (this.peek()?.kind !== 'open') return [this.quoted(what)];
    this.next();
    const values: string[] = [];
    while (this.peek()?.kind !== 'close') values.push(this.quoted(what));
    this.next();
    return values;
  }

  /** oids: a or ( a $ b ); names stay names, OID macros are expanded. */
  oidList(what: string): string[] {
    if (this.peek()?.kind !== 'open') return [this.word(what)];
    this.next();
    const values: string[] = [];
    for (;;) {
      values.push(this.word(what));
      const token = this.next();
      if (token.kind === 'close') return values;
      if (token.kind !== 'dollar') throw new Error(`expected "$" or ")" in the list of ${what}`);
    }
  }
}

const NUMERIC_OID = /^[0-9]+(?:\.[0-9]+)*$/;

/** "MyOID:1.2" with MyOID defined by objectidentifier, or a numeric OID as it is. */
function expandOid(text: string, macros: ReadonlyMap<string, string>): string {
  if (NUMERIC_OID.test(text)) return text;
  const [name, rest] = text.split(':', 2) as [string, string | undefined];
  const base = macros.get(name.toLowerCase());
  if (base === undefined) return text;
  return rest === undefined ? base : `${base}.${rest}`;
}

const USAGES: ReadonlySet<string> = new Set(['userApplications', 'directoryOperation', 'distributedOperation', 'dSAOperation']);

interface TypeFields {
  oid: string; names: string[]; description?: string; obsolete: boolean; sup?: string; equality?: string; ordering?: string; substr?: string;
  syntax?: string; syntaxLength?: number; singleValue: boolean; collective: boolean; noUserModification: boolean; usage: Usage;
  extensions: Record<string, string[]>;
}

function readSyntax(reader: Reader, fields: TypeFields): void {
  const text = reader.word('a syntax OID');
  const match = /^(.+?)(?:\{([0-9]+)\})?$/.exec(text)!;
  fields.syntax = expandOid(match[1]!, reader.oidMacros);
  if (match[2] !== undefined) fields.syntaxLength = Number(match[2]);
}

/** One keyword of an attribute type description and what follows it. */
function readTypeField(reader: Reader, keyword: string, fields: TypeFields): void {
  switch (keyword) {
    case 'NAME': fields.names = reader.quotedList('a name'); return;
    case 'DESC': fields.description = reader.quoted('a description'); return;
    case 'OBSOLETE': fields.obsolete = true; return;
    case 'SUP': fields.sup = reader.word('a supertype'); return;
    case 'EQUALITY': fields.equality = reader.word('a matching rule'); return;
    case 'ORDERING': fields.ordering = reader.word('a matching rule'); return;
    case 'SUBSTR': fields.substr = reader.word('a matching rule'); return;
    case 'SYNTAX': readSyntax(reader, fields); return;
    case 'SINGLE-VALUE': fields.singleValue = true; return;
    case 'COLLECTIVE': fields.collective = true; return;
    case 'NO-USER-MODIFICATION': fields.noUserModification = true; return;
    case 'USAGE': {
      const usage = reader.word('a usage');
      if (!USAGES.has(usage)) throw new Error(`unknown USAGE ${usage}`);
      fields.usage = usage as Usage;
      return;
    }
    default: readExtension(reader, keyword, fields.extensions);
  }
}

function readExtension(reader: Reader, keyword: string, extensions: Record<string, string[]>): void {
  if (!/^X-[A-Za-z_-]+$/.test(keyword)) throw new Error(`unknown keyword ${keyword}`);
  extensions[keyword] = reader.quotedList(`the value of ${keyword}`);
}

function parseAttributeType(reader: Reader, source: string): AttributeTypeDescription {
  reader.expect('open');
  const fields: TypeFields = {
    oid: reader.oid('an OID'), names: [], obsolete: false, singleValue: false, collective: false, noUserModification: false,
    usage: 'userApplications', extensions: {},
  };
  for (let token = reader.peek(); token && token.kind !== 'close'; token = reader.peek()) {
    readTypeField(reader, reader.keyword(), fields);
  }
  reader.expect('close');
  if (fields.sup === undefined && fields.syntax === undefined) throw new Error('an attribute type needs SUP or SYNTAX');
  return { ...fields, source };
}

interface ClassFields {
  oid: string; names: string[]; description?: string; obsolete: boolean; sup: string[]; kind: ClassKind; must: string[]; may: string[];
  extensions: Record<string, string[]>;
}

function readClassField(reader: Reader, keyword: string, fields: ClassFields): void {
  switch (keyword) {
    case 'NAME': fields.names = reader.quotedList('a name'); return;
    case 'DESC': fields.description = reader.quoted('a description'); return;
    case 'OBSOLETE': fields.obsolete = true; return;
    case 'SUP': fields.sup = reader.oidList('superclasses'); return;
    case 'ABSTRACT': case 'STRUCTURAL': case 'AUXILIARY': fields.kind = keyword; return;
    case 'MUST': fields.must = reader.oidList('attribute types'); return;
    case 'MAY': fields.may = reader.oidList('attribute types'); return;
    default: readExtension(reader, keyword, fields.extensions);
  }
}

function parseObjectClass(reader: Reader, source: string): ObjectClassDescription {
  reader.expect('open');
  const fields: ClassFields = { oid: reader.oid('an OID'), names: [], obsolete: false, sup: [], kind: 'STRUCTURAL', must: [], may: [], extensions: {} };
  for (let token = reader.peek(); token && token.kind !== 'close'; token = reader.peek()) {
    readClassField(reader, reader.keyword(), fields);
  }
  reader.expect('close');
  return { ...fields, source };
}

function parseSyntax(reader: Reader, source: string): SyntaxDescription {
  reader.expect('open');
  const oid = reader.oid('an OID');
  let description: string | undefined;
  const extensions: Record<string, string[]> = {};
  for (let token = reader.peek(); token && token.kind !== 'close'; token = reader.peek()) {
    const keyword = reader.keyword();
    if (keyword === 'DESC') description = reader.quoted('a description');
    else if (keyword === 'NAME') reader.quotedList('a name'); // OpenLDAP's own files name syntaxes; RFC 4512 does not
    else readExtension(reader, keyword, extensions);
  }
  reader.expect('close');
  const substitute = extensions['X-SUBST']?.[0];
  return { oid, source, ...(description !== undefined && { description }), ...(substitute !== undefined && { substitute }) };
}

/** One attribute type description, e.g. a value of attributeTypes or olcAttributeTypes. */
export function parseAttributeTypeDescription(text: string, source = 'a description', macros: ReadonlyMap<string, string> = new Map()): AttributeTypeDescription {
  const reader = new Reader(tokenize(text), macros);
  const parsed = parseAttributeType(reader, source);
  if (!reader.done()) throw new Error('text after the closing ")"');
  return parsed;
}

/** One object class description. */
export function parseObjectClassDescription(text: string, source = 'a description', macros: ReadonlyMap<string, string> = new Map()): ObjectClassDescription {
  const reader = new Reader(tokenize(text), macros);
  const parsed = parseObjectClass(reader, source);
  if (!reader.done()) throw new Error('text after the closing ")"');
  return parsed;
}

interface Statement {
  readonly keyword: string;
  readonly body: string;
  readonly line: number;
}

/** The statements of a .schema file: a keyword at the start of a line, continued by lines that begin with white space. */
function schemaStatements(text: string): Statement[] {
  const statements: { keyword: string; body: string; line: number }[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    if (/^\s*(#|$)/.test(raw)) return;
    const last = statements.at(-1);
    if (/^\s/.test(raw) && last) {
      last.body += ` ${raw.trim()}`;
      return;
    }
    const match = /^(\S+)\s*(.*)$/.exec(raw)!;
    statements.push({ keyword: match[1]!.toLowerCase(), body: match[2]!, line: index + 1 });
  });
  return statements;
}

/** The values of an LDIF attribute over its continuation lines ("olcAttributeTypes: ..." and "olcAttributeTypes:: base64"). */
function ldifStatements(text: string): Statement[] {
  const unfolded: { text: string; line: number }[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const last = unfolded.at(-1);
    if (raw.startsWith(' ') && last) last.text += raw.slice(1);
    else if (!raw.startsWith('#')) unfolded.push({ text: raw, line: index + 1 });
  });
  const names: Record<string, string> = {
    olcattributetypes: 'attributetype', attributetypes: 'attributetype', olcobjectclasses: 'objectclass', objectclasses: 'objectclass',
    olcobjectidentifier: 'objectidentifier', olcldapsyntaxes: 'ldapsyntax', ldapsyntaxes: 'ldapsyntax',
  };
  const statements: Statement[] = [];
  for (const { text: line, line: number } of unfolded) {
    const match = /^([A-Za-z-]+)(::?)\s*(.*)$/.exec(line);
    const keyword = match ? names[match[1]!.toLowerCase()] : undefined;
    if (!match || keyword === undefined) continue;
    const value = match[2] === '::' ? Buffer.from(match[3]!, 'base64').toString('utf8') : match[3]!;
    statements.push({ keyword, body: value.replace(/^\{[0-9]+\}/, ''), line: number });
  }
  return statements;
}

/** Every attribute type and object class in a schema file, in either syntax; SchemaSyntaxError for the first that does not parse. */
export function parseSchemaFile(text: string, file: string): SchemaDefinitions {
  const ldif = /^(olcAttributeTypes|olcObjectClasses|attributeTypes|objectClasses|dn)::?/im.test(text);
  const macros = new Map<string, string>();
  const definitions = { attributeTypes: [], objectClasses: [], syntaxes: [] };
  for (const statement of ldif ? ldifStatements(text) : schemaStatements(text)) {
    const source = `${file} line ${statement.line}`;
    try {
      readStatement(statement, source, macros, definitions);
    } catch (error) {
      throw new SchemaSyntaxError(file, statement.line, error instanceof Error ? error.message : String(error));
    }
  }
  return definitions;
}

interface Collected {
  readonly attributeTypes: AttributeTypeDescription[];
  readonly objectClasses: ObjectClassDescription[];
  readonly syntaxes: SyntaxDescription[];
}

function readStatement(statement: Statement, source: string, macros: Map<string, string>, into: Collected): void {
  switch (statement.keyword) {
    case 'attributetype': into.attributeTypes.push(parseAttributeTypeDescription(statement.body, source, macros)); return;
    case 'objectclass': into.objectClasses.push(parseObjectClassDescription(statement.body, source, macros)); return;
    case 'ldapsyntax': {
      const reader = new Reader(tokenize(statement.body), macros);
      into.syntaxes.push(parseSyntax(reader, source));
      return;
    }
    case 'objectidentifier': {
      const [name, oid] = statement.body.trim().split(/\s+/);
      if (!name || !oid) throw new Error('objectidentifier needs a name and an OID');
      macros.set(name.toLowerCase(), expandOid(oid, macros));
      return;
    }
    default: throw new Error(`unknown statement "${statement.keyword}" (attributetype, objectclass, objectidentifier or ldapsyntax)`);
  }
}
