/**
 * The COSINE schema as RFC 4524 carries it forward from RFC 1274: all of its attribute types
 * (section 2) and object classes (section 3). RFC 1274's types that RFC 4524 dropped are not
 * here; the two that inetOrgPerson still names (audio, photo) are in inetorgperson.ts. uid and
 * dc, once COSINE's, are RFC 4519's now (core.ts).
 *
 * Where RFC 4524 renamed an RFC 1274 type (favouriteDrink to drink), the old name is listed
 * after the new one. Needs core.ts (name, distinguishedName and the classes named as SUP).
 */
export const COSINE_SCHEMA = `
# RFC 4524 section 2, in the RFC's (alphabetical) order.

# RFC 4524 2.1
attributetype ( 0.9.2342.19200300.100.1.37 NAME 'associatedDomain'
  EQUALITY caseIgnoreIA5Match
  SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )

# RFC 4524 2.2
attributetype ( 0.9.2342.19200300.100.1.38 NAME 'associatedName'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )

# RFC 4524 2.3
attributetype ( 0.9.2342.19200300.100.1.48 NAME 'buildingName'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.4 (RFC 1274's friendlyCountryName)
attributetype ( 0.9.2342.19200300.100.1.43 NAME ( 'co' 'friendlyCountryName' )
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4524 2.5
attributetype ( 0.9.2342.19200300.100.1.14 NAME 'documentAuthor'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )

# RFC 4524 2.6
attributetype ( 0.9.2342.19200300.100.1.11 NAME 'documentIdentifier'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.7
attributetype ( 0.9.2342.19200300.100.1.15 NAME 'documentLocation'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.8
attributetype ( 0.9.2342.19200300.100.1.56 NAME 'documentPublisher'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4524 2.9
attributetype ( 0.9.2342.19200300.100.1.12 NAME 'documentTitle'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.10
attributetype ( 0.9.2342.19200300.100.1.13 NAME 'documentVersion'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.11 (RFC 1274's favouriteDrink)
attributetype ( 0.9.2342.19200300.100.1.5 NAME ( 'drink' 'favouriteDrink' )
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.12 (RFC 1274's homeTelephoneNumber)
attributetype ( 0.9.2342.19200300.100.1.20 NAME ( 'homePhone' 'homeTelephoneNumber' )
  EQUALITY telephoneNumberMatch
  SUBSTR telephoneNumberSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.50 )

# RFC 4524 2.13
attributetype ( 0.9.2342.19200300.100.1.39 NAME 'homePostalAddress'
  EQUALITY caseIgnoreListMatch
  SUBSTR caseIgnoreListSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.41 )

# RFC 4524 2.14
attributetype ( 0.9.2342.19200300.100.1.9 NAME 'host'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.15
attributetype ( 0.9.2342.19200300.100.1.4 NAME 'info'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{2048} )

# RFC 4524 2.16 (RFC 1274's rfc822Mailbox)
attributetype ( 0.9.2342.19200300.100.1.3 NAME ( 'mail' 'rfc822Mailbox' )
  EQUALITY caseIgnoreIA5Match
  SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{256} )

# RFC 4524 2.17
attributetype ( 0.9.2342.19200300.100.1.10 NAME 'manager'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )

# RFC 4524 2.18 (RFC 1274's mobileTelephoneNumber)
attributetype ( 0.9.2342.19200300.100.1.41 NAME ( 'mobile' 'mobileTelephoneNumber' )
  EQUALITY telephoneNumberMatch
  SUBSTR telephoneNumberSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.50 )

# RFC 4524 2.19
attributetype ( 0.9.2342.19200300.100.1.45 NAME 'organizationalStatus'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.20 (RFC 1274's pagerTelephoneNumber)
attributetype ( 0.9.2342.19200300.100.1.42 NAME ( 'pager' 'pagerTelephoneNumber' )
  EQUALITY telephoneNumberMatch
  SUBSTR telephoneNumberSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.50 )

# RFC 4524 2.21
attributetype ( 0.9.2342.19200300.100.1.40 NAME 'personalTitle'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.22
attributetype ( 0.9.2342.19200300.100.1.6 NAME 'roomNumber'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.23
attributetype ( 0.9.2342.19200300.100.1.21 NAME 'secretary'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )

# RFC 4524 2.24
attributetype ( 0.9.2342.19200300.100.1.44 NAME 'uniqueIdentifier'
  EQUALITY caseIgnoreMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 2.25
attributetype ( 0.9.2342.19200300.100.1.8 NAME 'userClass'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )

# RFC 4524 section 3, in the RFC's order.

# RFC 4524 3.1
objectclass ( 0.9.2342.19200300.100.4.5 NAME 'account'
  SUP top STRUCTURAL
  MUST uid
  MAY ( description $ seeAlso $ l $ o $ ou $ host ) )

# RFC 4524 3.2
objectclass ( 0.9.2342.19200300.100.4.6 NAME 'document'
  SUP top STRUCTURAL
  MUST documentIdentifier
  MAY ( cn $ description $ seeAlso $ l $ o $ ou $ documentTitle $
    documentVersion $ documentAuthor $ documentLocation $
    documentPublisher ) )

# RFC 4524 3.3
objectclass ( 0.9.2342.19200300.100.4.9 NAME 'documentSeries'
  SUP top STRUCTURAL
  MUST cn
  MAY ( description $ l $ o $ ou $ seeAlso $ telephoneNumber ) )

# RFC 4524 3.4
objectclass ( 0.9.2342.19200300.100.4.13 NAME 'domain'
  SUP top STRUCTURAL
  MUST dc
  MAY ( userPassword $ searchGuide $ seeAlso $ businessCategory $
    x121Address $ registeredAddress $ destinationIndicator $
    preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $
    telephoneNumber $ internationalISDNNumber $ facsimileTelephoneNumber $
    street $ postOfficeBox $ postalCode $ postalAddress $
    physicalDeliveryOfficeName $ st $ l $ description $ o $
    associatedName ) )

# RFC 4524 3.5
objectclass ( 0.9.2342.19200300.100.4.17 NAME 'domainRelatedObject'
  SUP top AUXILIARY
  MUST associatedDomain )

# RFC 4524 3.6
objectclass ( 0.9.2342.19200300.100.4.18 NAME 'friendlyCountry'
  SUP country STRUCTURAL
  MUST co )

# RFC 4524 3.7
objectclass ( 0.9.2342.19200300.100.4.14 NAME 'rFC822localPart'
  SUP domain STRUCTURAL
  MAY ( cn $ description $ destinationIndicator $
    facsimileTelephoneNumber $ internationalISDNNumber $
    physicalDeliveryOfficeName $ postalAddress $ postalCode $
    postOfficeBox $ preferredDeliveryMethod $ registeredAddress $
    seeAlso $ sn $ street $ telephoneNumber $
    teletexTerminalIdentifier $ telexNumber $ x121Address ) )

# RFC 4524 3.8
objectclass ( 0.9.2342.19200300.100.4.7 NAME 'room'
  SUP top STRUCTURAL
  MUST cn
  MAY ( roomNumber $ description $ seeAlso $ telephoneNumber ) )

# RFC 4524 3.9
objectclass ( 0.9.2342.19200300.100.4.19 NAME 'simpleSecurityObject'
  SUP top AUXILIARY
  MUST userPassword )
`;
