/**
 * The NIS schema (RFC 2307, "An Approach for Using LDAP as a Network Information Service"):
 * all of its attribute types (section 3, 1.3.6.1.1.1.1.0-27; .25 is unassigned) and object
 * classes (section 4, 1.3.6.1.1.1.2.0-12).
 *
 * RFC 2307 writes syntaxes by name; here they are the OIDs those names stand for:
 * 'INTEGER' 1.3.6.1.4.1.1466.115.121.1.27, 'IA5String' 1.3.6.1.4.1.1466.115.121.1.26, and
 * its own two syntaxes (section 2.4), nisNetgroupTripleSyntax 1.3.6.1.1.1.0.0 and
 * bootParameterSyntax 1.3.6.1.1.1.0.1. Its SUBSTRINGS keyword is written SUBSTR (RFC 4512's).
 * Where the RFC's DESC of a class goes on to say which value of cn is the canonical name
 * ("the service's canonical name"), only its first sentence is kept here. Needs core.ts (name,
 * cn, uid, userPassword, description, l) and cosine.ts (manager).
 *
 * The text is in parts so that rfc2307bis.ts can reuse all of it but posixGroup.
 */

/** RFC 2307 section 3: the attribute types. */
export const NIS_ATTRIBUTE_TYPES = `
attributetype ( 1.3.6.1.1.1.1.0 NAME 'uidNumber'
  DESC 'An integer uniquely identifying a user in an administrative domain'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.1 NAME 'gidNumber'
  DESC 'An integer uniquely identifying a group in an administrative domain'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.2 NAME 'gecos'
  DESC 'The GECOS field; the common name'
  EQUALITY caseIgnoreIA5Match
  SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.3 NAME 'homeDirectory'
  DESC 'The absolute path to the home directory'
  EQUALITY caseExactIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.4 NAME 'loginShell'
  DESC 'The path to the login shell'
  EQUALITY caseExactIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.5 NAME 'shadowLastChange'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.6 NAME 'shadowMin'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.7 NAME 'shadowMax'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.8 NAME 'shadowWarning'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.9 NAME 'shadowInactive'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.10 NAME 'shadowExpire'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.11 NAME 'shadowFlag'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.12 NAME 'memberUid'
  EQUALITY caseExactIA5Match
  SUBSTR caseExactIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )

attributetype ( 1.3.6.1.1.1.1.13 NAME 'memberNisNetgroup'
  EQUALITY caseExactIA5Match
  SUBSTR caseExactIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )

attributetype ( 1.3.6.1.1.1.1.14 NAME 'nisNetgroupTriple'
  DESC 'Netgroup triple'
  SYNTAX 1.3.6.1.1.1.0.0 )

attributetype ( 1.3.6.1.1.1.1.15 NAME 'ipServicePort'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.16 NAME 'ipServiceProtocol'
  SUP name )

attributetype ( 1.3.6.1.1.1.1.17 NAME 'ipProtocolNumber'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.18 NAME 'oncRpcNumber'
  EQUALITY integerMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.19 NAME 'ipHostNumber'
  DESC 'IP address as a dotted decimal, eg. 192.168.1.1, omitting leading zeros'
  EQUALITY caseIgnoreIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128} )

attributetype ( 1.3.6.1.1.1.1.20 NAME 'ipNetworkNumber'
  DESC 'IP network as a dotted decimal, eg. 192.168, omitting leading zeros'
  EQUALITY caseIgnoreIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128}
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.21 NAME 'ipNetmaskNumber'
  DESC 'IP netmask as a dotted decimal, eg. 255.255.255.0, omitting leading zeros'
  EQUALITY caseIgnoreIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128}
  SINGLE-VALUE )

attributetype ( 1.3.6.1.1.1.1.22 NAME 'macAddress'
  DESC 'MAC address in maximal, colon separated hex notation, eg. 00:00:92:90:ee:e2'
  EQUALITY caseIgnoreIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128} )

attributetype ( 1.3.6.1.1.1.1.23 NAME 'bootParameter'
  DESC 'rpc.bootparamd parameter'
  SYNTAX 1.3.6.1.1.1.0.1 )

attributetype ( 1.3.6.1.1.1.1.24 NAME 'bootFile'
  DESC 'Boot image name'
  EQUALITY caseExactIA5Match
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )

attributetype ( 1.3.6.1.1.1.1.26 NAME 'nisMapName'
  SUP name )

attributetype ( 1.3.6.1.1.1.1.27 NAME 'nisMapEntry'
  EQUALITY caseExactIA5Match
  SUBSTR caseExactIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{1024}
  SINGLE-VALUE )
`;

/** RFC 2307 section 4: posixAccount and shadowAccount. */
export const NIS_ACCOUNT_CLASSES = `
objectclass ( 1.3.6.1.1.1.2.0 NAME 'posixAccount'
  DESC 'Abstraction of an account with POSIX attributes'
  SUP top AUXILIARY
  MUST ( cn $ uid $ uidNumber $ gidNumber $ homeDirectory )
  MAY ( userPassword $ loginShell $ gecos $ description ) )

# The RFC's MAY list lacks the $ after shadowMin; put back here.
objectclass ( 1.3.6.1.1.1.2.1 NAME 'shadowAccount'
  DESC 'Additional attributes for shadow passwords'
  SUP top AUXILIARY
  MUST uid
  MAY ( userPassword $ shadowLastChange $ shadowMin $ shadowMax $
    shadowWarning $ shadowInactive $ shadowExpire $ shadowFlag $
    description ) )
`;

/** RFC 2307 section 4: posixGroup, a STRUCTURAL class (rfc2307bis.ts has the AUXILIARY one). */
export const NIS_POSIX_GROUP = `
objectclass ( 1.3.6.1.1.1.2.2 NAME 'posixGroup'
  DESC 'Abstraction of a group of accounts'
  SUP top STRUCTURAL
  MUST ( cn $ gidNumber )
  MAY ( userPassword $ memberUid $ description ) )
`;

/** RFC 2307 section 4: the other classes (services, protocols, hosts, networks, netgroups, maps, devices). */
export const NIS_OTHER_CLASSES = `
objectclass ( 1.3.6.1.1.1.2.3 NAME 'ipService'
  DESC 'Abstraction an Internet Protocol service'
  SUP top STRUCTURAL
  MUST ( cn $ ipServicePort $ ipServiceProtocol )
  MAY description )

# The RFC names description in both MUST and MAY (so does oncRpc): it is required.
objectclass ( 1.3.6.1.1.1.2.4 NAME 'ipProtocol'
  DESC 'Abstraction of an IP protocol'
  SUP top STRUCTURAL
  MUST ( cn $ ipProtocolNumber $ description )
  MAY description )

objectclass ( 1.3.6.1.1.1.2.5 NAME 'oncRpc'
  DESC 'Abstraction of an Open Network Computing (ONC) [RFC1057] Remote Procedure Call (RPC) binding'
  SUP top STRUCTURAL
  MUST ( cn $ oncRpcNumber $ description )
  MAY description )

objectclass ( 1.3.6.1.1.1.2.6 NAME 'ipHost'
  DESC 'Abstraction of a host, an IP device'
  SUP top AUXILIARY
  MUST ( cn $ ipHostNumber )
  MAY ( l $ description $ manager ) )

objectclass ( 1.3.6.1.1.1.2.7 NAME 'ipNetwork'
  DESC 'Abstraction of a network'
  SUP top STRUCTURAL
  MUST ( cn $ ipNetworkNumber )
  MAY ( ipNetmaskNumber $ l $ description $ manager ) )

objectclass ( 1.3.6.1.1.1.2.8 NAME 'nisNetgroup'
  DESC 'Abstraction of a netgroup. May refer to other netgroups'
  SUP top STRUCTURAL
  MUST cn
  MAY ( nisNetgroupTriple $ memberNisNetgroup $ description ) )

objectclass ( 1.3.6.1.1.1.2.9 NAME 'nisMap'
  DESC 'A generic abstraction of a NIS map'
  SUP top STRUCTURAL
  MUST nisMapName
  MAY description )

objectclass ( 1.3.6.1.1.1.2.10 NAME 'nisObject'
  DESC 'An entry in a NIS map'
  SUP top STRUCTURAL
  MUST ( cn $ nisMapEntry $ nisMapName )
  MAY description )

objectclass ( 1.3.6.1.1.1.2.11 NAME 'ieee802Device'
  DESC 'A device with a MAC address; device SHOULD be used as a structural class'
  SUP top AUXILIARY
  MAY macAddress )

objectclass ( 1.3.6.1.1.1.2.12 NAME 'bootableDevice'
  DESC 'A device with boot parameters; device SHOULD be used as a structural class'
  SUP top AUXILIARY
  MAY ( bootFile $ bootParameter ) )
`;

/** RFC 2307, whole: its types and all thirteen classes, posixGroup STRUCTURAL. */
export const NIS_SCHEMA = NIS_ATTRIBUTE_TYPES + NIS_ACCOUNT_CLASSES + NIS_POSIX_GROUP + NIS_OTHER_CLASSES;
