/**
 * Operational types leveldap knows that no RFC defines: memberOf, as OpenLDAP's memberof
 * overlay (and, before it, iPlanet and Active Directory) publishes it, and OpenLDAP's entryCSN
 * and contextCSN, which entries exported from slapd (slapcat) carry and leveldap keeps as they
 * come. These OIDs are OpenLDAP's and Microsoft's, so their definitions are the ones those
 * servers publish; the CSN syntax (1.3.6.1.4.1.4203.666.11.2.1) and its CSNMatch and
 * CSNOrderingMatch rules are OpenLDAP's too.
 */
export const LEVELDAP_SCHEMA = `
# The groups an entry is a member of (the DNs of the groups that name it in member).
attributetype ( 1.2.840.113556.1.2.102 NAME 'memberOf'
  DESC 'Group that the entry belongs to'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  NO-USER-MODIFICATION
  USAGE dSAOperation )

# OpenLDAP: the change sequence number of an entry's last change.
attributetype ( 1.3.6.1.4.1.4203.666.1.7 NAME 'entryCSN'
  DESC 'change sequence number of the entry content'
  EQUALITY CSNMatch
  ORDERING CSNOrderingMatch
  SYNTAX 1.3.6.1.4.1.4203.666.11.2.1{64}
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

# OpenLDAP: the largest CSN committed in a naming context (on its suffix entry).
attributetype ( 1.3.6.1.4.1.4203.666.1.25 NAME 'contextCSN'
  DESC 'the largest committed CSN of a context'
  EQUALITY CSNMatch
  ORDERING CSNOrderingMatch
  SYNTAX 1.3.6.1.4.1.4203.666.11.2.1{64}
  NO-USER-MODIFICATION
  USAGE dSAOperation )
`;
