/**
 * The core schema: RFC 4512's directory operational types, subschema types and root DSE types
 * with its four object classes; hasSubordinates (X.501, not in RFC 4512, published by every
 * server); vendorName and vendorVersion (RFC 3045), entryUUID (RFC 4530), entryDN (RFC 5020);
 * RFC 4519's user types (all of its section 2) and object classes (all of its section 3); and
 * RFC 4523's five certificate and CRL types.
 *
 * Each definition is the RFC's. Where the RFC gives one name and X.500 or RFC 1274 another
 * (`cn`, X.500's `commonName`), both are listed, the RFC's first. Sections are cited in the
 * comments. Written in OpenLDAP's .schema spelling (RFC 4512 4.1 descriptions after the
 * `attributetype` and `objectclass` keywords).
 */
export const CORE_SCHEMA = `
# RFC 4512 2.4.1, 3.3: every entry's object classes.
attributetype ( 2.5.4.0 NAME 'objectClass'
  EQUALITY objectIdentifierMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 )

# RFC 4512 2.6.2: the entry an alias points to (X.501's aliasedEntryName).
attributetype ( 2.5.4.1 NAME ( 'aliasedObjectName' 'aliasedEntryName' )
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE )

# RFC 4512 3.4: operational attributes the server maintains.
attributetype ( 2.5.18.3 NAME 'creatorsName'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 2.5.18.1 NAME 'createTimestamp'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 2.5.18.4 NAME 'modifiersName'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 2.5.18.2 NAME 'modifyTimestamp'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 2.5.21.9 NAME 'structuralObjectClass'
  EQUALITY objectIdentifierMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 2.5.21.10 NAME 'governingStructureRule'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 2.5.18.10 NAME 'subschemaSubentry'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

# X.501: whether the entry has subordinates (TRUE or FALSE). Not in RFC 4512.
attributetype ( 2.5.18.9 NAME 'hasSubordinates'
  EQUALITY booleanMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

# RFC 4512 4.2: the subschema subentry's attributes.
attributetype ( 2.5.21.6 NAME 'objectClasses'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.37
  USAGE directoryOperation )

attributetype ( 2.5.21.5 NAME 'attributeTypes'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.3
  USAGE directoryOperation )

attributetype ( 2.5.21.4 NAME 'matchingRules'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.30
  USAGE directoryOperation )

attributetype ( 2.5.21.8 NAME 'matchingRuleUse'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.31
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.1466.101.120.16 NAME 'ldapSyntaxes'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.54
  USAGE directoryOperation )

attributetype ( 2.5.21.2 NAME 'dITContentRules'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.16
  USAGE directoryOperation )

attributetype ( 2.5.21.1 NAME 'dITStructureRules'
  EQUALITY integerFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.17
  USAGE directoryOperation )

attributetype ( 2.5.21.7 NAME 'nameForms'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.35
  USAGE directoryOperation )

# RFC 4512 5.1: the root DSE's attributes. The RFC gives most of them no matching rule.
attributetype ( 1.3.6.1.4.1.1466.101.120.6 NAME 'altServer'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.1466.101.120.5 NAME 'namingContexts'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.1466.101.120.13 NAME 'supportedControl'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.1466.101.120.7 NAME 'supportedExtension'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.1.3.5 NAME 'supportedFeatures'
  EQUALITY objectIdentifierMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.1466.101.120.15 NAME 'supportedLDAPVersion'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.1466.101.120.14 NAME 'supportedSASLMechanisms'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  USAGE dSAOperation )

# RFC 3045: the server's vendor. The RFC writes the matching rule as its OID,
# 1.3.6.1.4.1.1466.109.114.1, which is caseExactIA5Match (named here).
attributetype ( 1.3.6.1.1.4 NAME 'vendorName'
  EQUALITY caseExactIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE dSAOperation )

attributetype ( 1.3.6.1.1.5 NAME 'vendorVersion'
  EQUALITY caseExactIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE dSAOperation )

# RFC 4530 3: the entry's UUID (syntax 1.3.6.1.1.16.1 is RFC 4530's UUID syntax).
attributetype ( 1.3.6.1.1.16.4 NAME 'entryUUID'
  DESC 'UUID of the entry'
  EQUALITY uuidMatch
  ORDERING uuidOrderingMatch
  SYNTAX 1.3.6.1.1.16.1
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

# RFC 5020 2: the entry's own DN.
attributetype ( 1.3.6.1.1.20 NAME 'entryDN'
  DESC 'DN of the entry'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

# RFC 4519 section 2, in the RFC's (alphabetical) order, but for name and distinguishedName,
# which come first: here a SUP is always defined before the definitions that name it.

# RFC 4519 2.18
attributetype ( 2.5.4.41 NAME 'name'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.7
attributetype ( 2.5.4.49 NAME 'distinguishedName'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )

# RFC 4519 2.1
attributetype ( 2.5.4.15 NAME 'businessCategory'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.2: a two-letter ISO 3166 code (X.520's countryName).
attributetype ( 2.5.4.6 NAME ( 'c' 'countryName' )
  SUP name
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.11
  SINGLE-VALUE )

# RFC 4519 2.3 (X.520's commonName)
attributetype ( 2.5.4.3 NAME ( 'cn' 'commonName' )
  SUP name )

# RFC 4519 2.4 (RFC 1274's domainComponent)
attributetype ( 0.9.2342.19200300.100.1.25 NAME ( 'dc' 'domainComponent' )
  EQUALITY caseIgnoreIA5Match
  SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26
  SINGLE-VALUE )

# RFC 4519 2.5
attributetype ( 2.5.4.13 NAME 'description'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.6
attributetype ( 2.5.4.27 NAME 'destinationIndicator'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.44 )

# RFC 4519 2.8
attributetype ( 2.5.4.46 NAME 'dnQualifier'
  EQUALITY caseIgnoreMatch
  ORDERING caseIgnoreOrderingMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.44 )

# RFC 4519 2.9
attributetype ( 2.5.4.47 NAME 'enhancedSearchGuide'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.21 )

# RFC 4519 2.10: no matching rule in the RFC (X.520's fax; the short name is RFC 2256's).
attributetype ( 2.5.4.23 NAME ( 'facsimileTelephoneNumber' 'fax' )
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.22 )

# RFC 4519 2.11
attributetype ( 2.5.4.44 NAME 'generationQualifier'
  SUP name )

# RFC 4519 2.12 (the short name gn is X.520's)
attributetype ( 2.5.4.42 NAME ( 'givenName' 'gn' )
  SUP name )

# RFC 4519 2.13
attributetype ( 2.5.4.51 NAME 'houseIdentifier'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.14
attributetype ( 2.5.4.43 NAME 'initials'
  SUP name )

# RFC 4519 2.15
attributetype ( 2.5.4.25 NAME 'internationalISDNNumber'
  EQUALITY numericStringMatch
  SUBSTR numericStringSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.36 )

# RFC 4519 2.16 (X.520's localityName)
attributetype ( 2.5.4.7 NAME ( 'l' 'localityName' )
  SUP name )

# RFC 4519 2.17
attributetype ( 2.5.4.31 NAME 'member'
  SUP distinguishedName )

# RFC 4519 2.19 (X.520's organizationName)
attributetype ( 2.5.4.10 NAME ( 'o' 'organizationName' )
  SUP name )

# RFC 4519 2.20 (X.520's organizationalUnitName)
attributetype ( 2.5.4.11 NAME ( 'ou' 'organizationalUnitName' )
  SUP name )

# RFC 4519 2.21
attributetype ( 2.5.4.32 NAME 'owner'
  SUP distinguishedName )

# RFC 4519 2.22
attributetype ( 2.5.4.19 NAME 'physicalDeliveryOfficeName'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.23
attributetype ( 2.5.4.16 NAME 'postalAddress'
  EQUALITY caseIgnoreListMatch
  SUBSTR caseIgnoreListSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.41 )

# RFC 4519 2.24
attributetype ( 2.5.4.17 NAME 'postalCode'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.25
attributetype ( 2.5.4.18 NAME 'postOfficeBox'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.26
attributetype ( 2.5.4.28 NAME 'preferredDeliveryMethod'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.14
  SINGLE-VALUE )

# RFC 4519 2.27
attributetype ( 2.5.4.26 NAME 'registeredAddress'
  SUP postalAddress
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.41 )

# RFC 4519 2.28
attributetype ( 2.5.4.33 NAME 'roleOccupant'
  SUP distinguishedName )

# RFC 4519 2.29
attributetype ( 2.5.4.14 NAME 'searchGuide'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.25 )

# RFC 4519 2.30
attributetype ( 2.5.4.34 NAME 'seeAlso'
  SUP distinguishedName )

# RFC 4519 2.31
attributetype ( 2.5.4.5 NAME 'serialNumber'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.44 )

# RFC 4519 2.32 (X.520's surname)
attributetype ( 2.5.4.4 NAME ( 'sn' 'surname' )
  SUP name )

# RFC 4519 2.33 (X.520's stateOrProvinceName)
attributetype ( 2.5.4.8 NAME ( 'st' 'stateOrProvinceName' )
  SUP name )

# RFC 4519 2.34 (X.520's streetAddress)
attributetype ( 2.5.4.9 NAME ( 'street' 'streetAddress' )
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.35
attributetype ( 2.5.4.20 NAME 'telephoneNumber'
  EQUALITY telephoneNumberMatch
  SUBSTR telephoneNumberSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.50 )

# RFC 4519 2.36
attributetype ( 2.5.4.22 NAME 'teletexTerminalIdentifier'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.51 )

# RFC 4519 2.37
attributetype ( 2.5.4.21 NAME 'telexNumber'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.52 )

# RFC 4519 2.38
attributetype ( 2.5.4.12 NAME 'title'
  SUP name )

# RFC 4519 2.39 (RFC 1274's userid)
attributetype ( 0.9.2342.19200300.100.1.1 NAME ( 'uid' 'userid' )
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 4519 2.40
attributetype ( 2.5.4.50 NAME 'uniqueMember'
  EQUALITY uniqueMemberMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.34 )

# RFC 4519 2.41
attributetype ( 2.5.4.35 NAME 'userPassword'
  EQUALITY octetStringMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 )

# RFC 4519 2.42
attributetype ( 2.5.4.24 NAME 'x121Address'
  EQUALITY numericStringMatch
  SUBSTR numericStringSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.36 )

# RFC 4519 2.43
attributetype ( 2.5.4.45 NAME 'x500UniqueIdentifier'
  EQUALITY bitStringMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.6 )

# RFC 4523 2: certificates and revocation lists (transferred with ;binary).
attributetype ( 2.5.4.36 NAME 'userCertificate'
  DESC 'X.509 user certificate'
  EQUALITY certificateExactMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.8 )

attributetype ( 2.5.4.37 NAME 'cACertificate'
  DESC 'X.509 CA certificate'
  EQUALITY certificateExactMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.8 )

attributetype ( 2.5.4.40 NAME 'crossCertificatePair'
  DESC 'X.509 cross certificate pair'
  EQUALITY certificatePairExactMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.10 )

attributetype ( 2.5.4.39 NAME 'certificateRevocationList'
  DESC 'X.509 certificate revocation list'
  EQUALITY certificateListExactMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.9 )

attributetype ( 2.5.4.38 NAME 'authorityRevocationList'
  DESC 'X.509 authority revocation list'
  EQUALITY certificateListExactMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.9 )

# RFC 4512 2.4.1, 2.6.1, 4.3, 4.2: the directory's own classes.
objectclass ( 2.5.6.0 NAME 'top'
  ABSTRACT
  MUST objectClass )

objectclass ( 2.5.6.1 NAME 'alias'
  SUP top STRUCTURAL
  MUST aliasedObjectName )

objectclass ( 1.3.6.1.4.1.1466.101.120.111 NAME 'extensibleObject'
  SUP top AUXILIARY )

# The RFC's MAY list, as it gives it: it does not name ldapSyntaxes.
objectclass ( 2.5.20.1 NAME 'subschema'
  AUXILIARY
  MAY ( dITStructureRules $ nameForms $ dITContentRules $ objectClasses $
    attributeTypes $ matchingRules $ matchingRuleUse ) )

# RFC 4519 section 3, in the RFC's order but for person, which comes before the classes
# that name it as SUP.

# RFC 4519 3.1
objectclass ( 2.5.6.11 NAME 'applicationProcess'
  SUP top STRUCTURAL
  MUST cn
  MAY ( seeAlso $ ou $ l $ description ) )

# RFC 4519 3.2
objectclass ( 2.5.6.2 NAME 'country'
  SUP top STRUCTURAL
  MUST c
  MAY ( searchGuide $ description ) )

# RFC 4519 3.3
objectclass ( 1.3.6.1.4.1.1466.344 NAME 'dcObject'
  SUP top AUXILIARY
  MUST dc )

# RFC 4519 3.4
objectclass ( 2.5.6.14 NAME 'device'
  SUP top STRUCTURAL
  MUST cn
  MAY ( serialNumber $ seeAlso $ owner $ ou $ o $ l $ description ) )

# RFC 4519 3.5
objectclass ( 2.5.6.9 NAME 'groupOfNames'
  SUP top STRUCTURAL
  MUST ( member $ cn )
  MAY ( businessCategory $ seeAlso $ owner $ ou $ o $ description ) )

# RFC 4519 3.6
objectclass ( 2.5.6.17 NAME 'groupOfUniqueNames'
  SUP top STRUCTURAL
  MUST ( uniqueMember $ cn )
  MAY ( businessCategory $ seeAlso $ owner $ ou $ o $ description ) )

# RFC 4519 3.7
objectclass ( 2.5.6.3 NAME 'locality'
  SUP top STRUCTURAL
  MAY ( street $ seeAlso $ searchGuide $ st $ l $ description ) )

# RFC 4519 3.8
objectclass ( 2.5.6.4 NAME 'organization'
  SUP top STRUCTURAL
  MUST o
  MAY ( userPassword $ searchGuide $ seeAlso $ businessCategory $
    x121Address $ registeredAddress $ destinationIndicator $
    preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $
    telephoneNumber $ internationalISDNNumber $
    facsimileTelephoneNumber $ street $ postOfficeBox $ postalCode $
    postalAddress $ physicalDeliveryOfficeName $ st $ l $ description ) )

# RFC 4519 3.12
objectclass ( 2.5.6.6 NAME 'person'
  SUP top STRUCTURAL
  MUST ( sn $ cn )
  MAY ( userPassword $ telephoneNumber $ seeAlso $ description ) )

# RFC 4519 3.9
objectclass ( 2.5.6.7 NAME 'organizationalPerson'
  SUP person STRUCTURAL
  MAY ( title $ x121Address $ registeredAddress $ destinationIndicator $
    preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $
    telephoneNumber $ internationalISDNNumber $
    facsimileTelephoneNumber $ street $ postOfficeBox $ postalCode $
    postalAddress $ physicalDeliveryOfficeName $ ou $ st $ l ) )

# RFC 4519 3.10 (the RFC names preferredDeliveryMethod twice; once here)
objectclass ( 2.5.6.8 NAME 'organizationalRole'
  SUP top STRUCTURAL
  MUST cn
  MAY ( x121Address $ registeredAddress $ destinationIndicator $
    preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $
    telephoneNumber $ internationalISDNNumber $
    facsimileTelephoneNumber $ seeAlso $ roleOccupant $ street $
    postOfficeBox $ postalCode $ postalAddress $
    physicalDeliveryOfficeName $ ou $ st $ l $ description ) )

# RFC 4519 3.11
objectclass ( 2.5.6.5 NAME 'organizationalUnit'
  SUP top STRUCTURAL
  MUST ou
  MAY ( businessCategory $ description $ destinationIndicator $
    facsimileTelephoneNumber $ internationalISDNNumber $ l $
    physicalDeliveryOfficeName $ postalAddress $ postalCode $
    postOfficeBox $ preferredDeliveryMethod $ registeredAddress $
    searchGuide $ seeAlso $ st $ street $ telephoneNumber $
    teletexTerminalIdentifier $ telexNumber $ userPassword $
    x121Address ) )

# RFC 4519 3.13 (the RFC names preferredDeliveryMethod twice; once here)
objectclass ( 2.5.6.10 NAME 'residentialPerson'
  SUP person STRUCTURAL
  MUST l
  MAY ( businessCategory $ x121Address $ registeredAddress $
    destinationIndicator $ preferredDeliveryMethod $ telexNumber $
    teletexTerminalIdentifier $ telephoneNumber $
    internationalISDNNumber $ facsimileTelephoneNumber $ street $
    postOfficeBox $ postalCode $ postalAddress $
    physicalDeliveryOfficeName $ st $ l ) )

# RFC 4519 3.14
objectclass ( 1.3.6.1.1.3.1 NAME 'uidObject'
  SUP top AUXILIARY
  MUST uid )
`;
