/**
 * RFC 2307 with draft-howard-rfc2307bis's posixGroup: an AUXILIARY class that requires only
 * gidNumber, so that a group entry can be a groupOfNames or groupOfUniqueNames (whose
 * STRUCTURAL class supplies cn, and member or uniqueMember) and a POSIX group at once.
 *
 * This text replaces nis.ts's, it does not add to it: both define posixGroup under the same
 * OID, 1.3.6.1.1.1.2.2 (STRUCTURAL with MUST cn there, AUXILIARY here), so a site loads one
 * or the other. Everything else is RFC 2307's, shared with nis.ts.
 *
 * Not carried from the draft: its other changes and additions (the automount and
 * nisDomainObject classes and their types, nisKeyObject, authPassword in the account classes,
 * the syntax changes of a few types). What is here is exactly RFC 2307 but for posixGroup.
 */
import { NIS_ACCOUNT_CLASSES, NIS_ATTRIBUTE_TYPES, NIS_OTHER_CLASSES } from './nis.js';

/** draft-howard-rfc2307bis: posixGroup as an AUXILIARY class, cn no longer required. */
export const RFC2307BIS_POSIX_GROUP = `
objectclass ( 1.3.6.1.1.1.2.2 NAME 'posixGroup'
  DESC 'Abstraction of a group of accounts'
  SUP top AUXILIARY
  MUST gidNumber
  MAY ( userPassword $ memberUid $ description ) )
`;

/** RFC 2307's types and classes, posixGroup AUXILIARY. Conflicts with NIS_SCHEMA (posixGroup). */
export const RFC2307BIS_SCHEMA = NIS_ATTRIBUTE_TYPES + NIS_ACCOUNT_CLASSES + RFC2307BIS_POSIX_GROUP + NIS_OTHER_CLASSES;
