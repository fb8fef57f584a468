/**
 * The schema registry: attribute types and object classes from RFC 4512 descriptions (the
 * built-in schemas of src/store/schema/builtin/ and any --schema files), resolved once: a type's
 * matching rules and syntax come down from its SUP chain, a class's MUST and MAY include its
 * superclasses'. Immutable once built. A SchemaError names the definition's file and line and
 * what is wrong with it (an unknown SUP, matching rule, syntax or attribute, a name defined twice).
 */
import type { AttributeTypeDescription, ClassKind, ObjectClassDescription, SchemaDefinitions, SyntaxDescription, Usage } from './parse.js';
import { BUILTIN_MATCHING_RULES, type MatchingRule } from './matching-rules.js';
import { BUILTIN_SYNTAXES, type Syntax } from './syntaxes.js';
import type { Equality } from './equality.js';

export class SchemaError extends Error {
  override name = 'SchemaError';
}

export interface SchemaAttributeType {
  readonly oid: string;
  readonly names: readonly string[];
  /** The first name (or the OID when it has none). */
  readonly name: string;
  /** The name lower-cased: how indexes and lookups refer to the type. */
  readonly key: string;
  readonly description: AttributeTypeDescription;
  readonly sup?: SchemaAttributeType;
  readonly equality?: MatchingRule;
  readonly ordering?: MatchingRule;
  readonly substr?: MatchingRule;
  readonly syntax: Syntax;
  /** How values compare for equality: the rule's, or octets when the type has none. */
  readonly compare: Equality;
  readonly singleValue: boolean;
  readonly noUserModification: boolean;
  readonly usage: Usage;
  /** Any usage but userApplications: returned for '+', not '*'. */
  readonly operational: boolean;
}

export interface SchemaObjectClass {
  readonly oid: string;
  readonly names: readonly string[];
  readonly name: string;
  readonly key: string;
  readonly kind: ClassKind;
  readonly description: ObjectClassDescription;
  readonly sup: readonly SchemaObjectClass[];
  /** Required types, its superclasses' included (keys). */
  readonly must: ReadonlySet<string>;
  /** Allowed types, its superclasses' included (keys; MUST ones are in `must` only). */
  readonly may: ReadonlySet<string>;
}

const where = (source: string, what: string): string => `${source}: ${what}`;

/** Looks a name or OID up, lower-casing names. */
function lookup<T>(map: ReadonlyMap<string, T>, nameOrOid: string): T | undefined {
  return map.get(nameOrOid.toLowerCase()) ?? map.get(nameOrOid);
}

function keysOf(names: readonly string[], oid: string): string[] {
  return [...names.map((name) => name.toLowerCase()), oid];
}

export class SchemaRegistry {
  private readonly types = new Map<string, SchemaAttributeType>();
  private readonly classes = new Map<string, SchemaObjectClass>();
  private readonly typeList: SchemaAttributeType[] = [];
  private readonly classList: SchemaObjectClass[] = [];
  private readonly syntaxes = new Map<string, Syntax>(BUILTIN_SYNTAXES);

  /** Builds a registry from the definitions of several files, in order (a later file may use an earlier one's names). */
  static build(files: readonly SchemaDefinitions[]): SchemaRegistry {
    const registry = new SchemaRegistry();
    for (const file of files) file.syntaxes.forEach((syntax) => registry.addSyntax(syntax));
    const types = files.flatMap((file) => file.attributeTypes);
    const byKey = new Map<string, AttributeTypeDescription>();
    for (const type of types) {
      for (const key of keysOf(type.names, type.oid)) {
        const taken = byKey.get(key);
        if (taken) throw new SchemaError(where(type.source, `attribute type ${key} is already defined (${taken.source})`));
        byKey.set(key, type);
      }
    }
    for (const type of types) registry.resolveType(type, byKey, []);
    for (const objectClass of files.flatMap((file) => file.objectClasses)) registry.addClass(objectClass);
    return registry;
  }

  attributeType(nameOrOid: string): SchemaAttributeType | undefined {
    return lookup(this.types, nameOrOid);
  }

  objectClass(nameOrOid: string): SchemaObjectClass | undefined {
    return lookup(this.classes, nameOrOid);
  }

  syntax(oid: string): Syntax | undefined {
    return this.syntaxes.get(oid);
  }

  /** Every type, in definition order. */
  get attributeTypes(): readonly SchemaAttributeType[] {
    return this.typeList;
  }

  get objectClasses(): readonly SchemaObjectClass[] {
    return this.classList;
  }

  /** Every syntax known (built-in and defined by a file). */
  get allSyntaxes(): readonly Syntax[] {
    return [...this.syntaxes.values()];
  }

  private addSyntax(syntax: SyntaxDescription): void {
    const substitute = syntax.substitute === undefined ? undefined : this.syntaxes.get(syntax.substitute);
    if (syntax.substitute !== undefined && !substitute) throw new SchemaError(where(syntax.source, `X-SUBST names an unknown syntax ${syntax.substitute}`));
    this.syntaxes.set(syntax.oid, { oid: syntax.oid, description: syntax.description ?? '', ...(substitute?.check && { check: substitute.check }) });
  }

  private rule(name: string | undefined, source: string): MatchingRule | undefined {
    if (name === undefined) return undefined;
    const rule = lookup(BUILTIN_MATCHING_RULES, name);
    if (!rule) throw new SchemaError(where(source, `unknown matching rule ${name}`));
    return rule;
  }

  /** Resolves a type after its SUP (recursively), once; `path` catches a SUP cycle. */
  private resolveType(description: AttributeTypeDescription, all: ReadonlyMap<string, AttributeTypeDescription>, path: string[]): SchemaAttributeType {
    const done = this.types.get(description.oid);
    if (done) return done;
    if (path.includes(description.oid)) throw new SchemaError(where(description.source, `SUP makes a cycle (${[...path, description.oid].join(' -> ')})`));
    const supDescription = description.sup === undefined ? undefined : lookup(all, description.sup);
    if (description.sup !== undefined && !supDescription) throw new SchemaError(where(description.source, `unknown SUP ${description.sup}`));
    const sup = supDescription && this.resolveType(supDescription, all, [...path, description.oid]);
    const type = this.typeFrom(description, sup);
    for (const key of keysOf(description.names, description.oid)) this.types.set(key, type);
    this.typeList.push(type);
    return type;
  }

  private typeFrom(description: AttributeTypeDescription, sup: SchemaAttributeType | undefined): SchemaAttributeType {
    const { source } = description;
    const equality = this.rule(description.equality, source) ?? sup?.equality;
    const syntaxOid = description.syntax ?? sup?.syntax.oid;
    const syntax = syntaxOid === undefined ? undefined : this.syntaxes.get(syntaxOid);
    if (!syntax) throw new SchemaError(where(source, `unknown syntax ${syntaxOid ?? '(none)'}`));
    const name = description.names[0] ?? description.oid;
    const ordering = this.rule(description.ordering, source) ?? sup?.ordering;
    const substr = this.rule(description.substr, source) ?? sup?.substr;
    return {
      oid: description.oid, names: description.names, name, key: name.toLowerCase(), description, syntax,
      compare: equality?.equality ?? 'octet', singleValue: description.singleValue, noUserModification: description.noUserModification,
      usage: description.usage, operational: description.usage !== 'userApplications',
      ...(sup && { sup }), ...(equality && { equality }), ...(ordering && { ordering }), ...(substr && { substr }),
    };
  }

  private typeKeys(names: readonly string[], source: string, what: string): string[] {
    return names.map((name) => {
      const type = this.attributeType(name);
      if (!type) throw new SchemaError(where(source, `${what} names an unknown attribute type ${name}`));
      return type.key;
    });
  }

  private addClass(description: ObjectClassDescription): void {
    const { source } = description;
    for (const key of keysOf(description.names, description.oid)) {
      const taken = this.classes.get(key);
      if (taken) throw new SchemaError(where(source, `object class ${key} is already defined (${taken.description.source})`));
    }
    const sup = description.sup.map((name) => {
      const found = this.objectClass(name);
      if (!found) throw new SchemaError(where(source, `unknown SUP ${name} (a superclass must be defined first)`));
      return found;
    });
    const must = new Set([...sup.flatMap((parent) => [...parent.must]), ...this.typeKeys(description.must, source, 'MUST')]);
    const may = new Set([...sup.flatMap((parent) => [...parent.may]), ...this.typeKeys(description.may, source, 'MAY')].filter((key) => !must.has(key)));
    const name = description.names[0] ?? description.oid;
    const objectClass: SchemaObjectClass = { oid: description.oid, names: description.names, name, key: name.toLowerCase(), kind: description.kind, description, sup, must, may };
    for (const key of keysOf(description.names, description.oid)) this.classes.set(key, objectClass);
    this.classList.push(objectClass);
  }
}
