/**
 * inetOrgPerson (RFC 2798): its nine attribute types and the class, as RFC 2798 gives them
 * (with RFC 4519's and RFC 4524's updates to the types they took over); labeledURI (RFC 2079);
 * and the two RFC 1274 types inetOrgPerson allows that RFC 4524 did not carry forward, audio
 * and photo, so that every name in inetOrgPerson's MAY resolves.
 *
 * Needs core.ts (organizationalPerson and the RFC 4519 types) and cosine.ts (homePhone, mail,
 * manager, mobile, pager, roomNumber, secretary, homePostalAddress).
 */
export const INETORGPERSON_SCHEMA = `
# RFC 2798 2.1
attributetype ( 2.16.840.1.113730.3.1.1 NAME 'carLicense'
  DESC 'vehicle license or registration plate'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 2798 2.2
attributetype ( 2.16.840.1.113730.3.1.2 NAME 'departmentNumber'
  DESC 'identifies a department within an organization'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 2798 2.3
attributetype ( 2.16.840.1.113730.3.1.241 NAME 'displayName'
  DESC 'preferred name of a person to be used when displaying entries'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  SINGLE-VALUE )

# RFC 2798 2.4
attributetype ( 2.16.840.1.113730.3.1.3 NAME 'employeeNumber'
  DESC 'numerically identifies an employee within an organization'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  SINGLE-VALUE )

# RFC 2798 2.5
attributetype ( 2.16.840.1.113730.3.1.4 NAME 'employeeType'
  DESC 'type of employment for a person'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 2798 2.6: the RFC gives it no matching rule.
attributetype ( 0.9.2342.19200300.100.1.60 NAME 'jpegPhoto'
  DESC 'a JPEG image'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.28 )

# RFC 2798 2.7
attributetype ( 2.16.840.1.113730.3.1.39 NAME 'preferredLanguage'
  DESC 'preferred written or spoken language for a person'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  SINGLE-VALUE )

# RFC 2798 2.8
attributetype ( 2.16.840.1.113730.3.1.40 NAME 'userSMIMECertificate'
  DESC 'PKCS#7 SignedData used to support S/MIME'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.5 )

# RFC 2798 2.9
attributetype ( 2.16.840.1.113730.3.1.216 NAME 'userPKCS12'
  DESC 'PKCS #12 PFX PDU for exchange of personal identity information'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.5 )

# RFC 2079: a URI, a space and an optional label.
attributetype ( 1.3.6.1.4.1.250.1.57 NAME 'labeledURI'
  DESC 'Uniform Resource Identifier with optional label'
  EQUALITY caseExactMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

# RFC 1274 9.3.55 and 9.3.7 (not in RFC 4524): a u-law sound file and a G3 fax image.
attributetype ( 0.9.2342.19200300.100.1.55 NAME 'audio'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.4{250000} )

attributetype ( 0.9.2342.19200300.100.1.7 NAME 'photo'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.23{250000} )

# RFC 2798 3
objectclass ( 2.16.840.1.113730.3.2.2 NAME 'inetOrgPerson'
  SUP organizationalPerson STRUCTURAL
  MAY ( audio $ businessCategory $ carLicense $ departmentNumber $
    displayName $ employeeNumber $ employeeType $ givenName $
    homePhone $ homePostalAddress $ initials $ jpegPhoto $
    labeledURI $ mail $ manager $ mobile $ o $ pager $ photo $
    roomNumber $ secretary $ uid $ userCertificate $
    x500UniqueIdentifier $ preferredLanguage $
    userSMIMECertificate $ userPKCS12 ) )
`;
