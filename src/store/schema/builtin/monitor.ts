/**
 * OpenLDAP back-monitor's attribute types and object classes (cn=Monitor), with OpenLDAP's
 * OIDs and definitions, so that scripts written for slapd's monitor read leveldap's the same
 * way: the counters are operational (`+`, or by name), as slapd has them. Only the types
 * leveldap's cn=Monitor uses are here, and monitorContext, which the root DSE announces.
 */
export const MONITOR_SCHEMA = `
attributetype ( 1.3.6.1.4.1.4203.666.1.10 NAME 'monitorContext'
  DESC 'monitor context'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.1 NAME 'monitoredInfo'
  DESC 'monitored info'
  EQUALITY caseIgnoreMatch
  SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{32768}
  NO-USER-MODIFICATION
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.3 NAME 'monitorCounter'
  DESC 'monitor counter'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  NO-USER-MODIFICATION
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.4 NAME 'monitorOpCompleted'
  DESC 'monitor completed operations'
  SUP monitorCounter NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.5 NAME 'monitorOpInitiated'
  DESC 'monitor initiated operations'
  SUP monitorCounter NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.6 NAME 'monitorConnectionNumber'
  DESC 'monitor connection number'
  SUP monitorCounter NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.7 NAME 'monitorConnectionAuthzDN'
  DESC 'monitor connection authorization DN'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.8 NAME 'monitorConnectionLocalAddress'
  DESC 'monitor connection local address'
  SUP monitoredInfo NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.9 NAME 'monitorConnectionPeerAddress'
  DESC 'monitor connection peer address'
  SUP monitoredInfo NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.10 NAME 'monitorTimestamp'
  DESC 'monitor timestamp'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.12 NAME 'readOnly'
  DESC 'read/write status of a given database'
  EQUALITY booleanMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.14 NAME 'monitorConnectionProtocol'
  DESC 'monitor connection protocol'
  SUP monitoredInfo NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.15 NAME 'monitorConnectionOpsReceived'
  DESC 'monitor number of operations received by the connection'
  SUP monitorCounter NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.16 NAME 'monitorConnectionOpsExecuting'
  DESC 'monitor number of operations in execution within the connection'
  SUP monitorCounter NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.17 NAME 'monitorConnectionOpsPending'
  DESC 'monitor number of pending operations within the connection'
  SUP monitorCounter NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.18 NAME 'monitorConnectionOpsCompleted'
  DESC 'monitor number of operations completed within the connection'
  SUP monitorCounter NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.23 NAME 'monitorConnectionListener'
  DESC 'monitor connection listener'
  SUP monitoredInfo NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.25 NAME 'monitorConnectionStartTime'
  DESC 'monitor connection start time'
  SUP monitorTimestamp SINGLE-VALUE NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.26 NAME 'monitorConnectionActivityTime'
  DESC 'monitor connection activity time'
  SUP monitorTimestamp SINGLE-VALUE NO-USER-MODIFICATION USAGE dSAOperation )

attributetype ( 1.3.6.1.4.1.4203.666.1.55.27 NAME 'monitorIsShadow'
  DESC 'TRUE if the database is shadow'
  EQUALITY booleanMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE USAGE dSAOperation )

objectclass ( 1.3.6.1.4.1.4203.666.3.16.1 NAME 'monitor'
  DESC 'OpenLDAP system monitoring'
  SUP top STRUCTURAL
  MUST cn
  MAY ( description $ seeAlso $ labeledURI $ monitoredInfo ) )

objectclass ( 1.3.6.1.4.1.4203.666.3.16.2 NAME 'monitorServer'
  DESC 'Server monitoring root entry'
  SUP monitor STRUCTURAL )

objectclass ( 1.3.6.1.4.1.4203.666.3.16.3 NAME 'monitorContainer'
  DESC 'monitor container class'
  SUP monitor STRUCTURAL )

objectclass ( 1.3.6.1.4.1.4203.666.3.16.4 NAME 'monitorCounterObject'
  DESC 'monitor counter class'
  SUP monitor STRUCTURAL )

objectclass ( 1.3.6.1.4.1.4203.666.3.16.5 NAME 'monitorOperation'
  DESC 'monitor operation class'
  SUP monitor STRUCTURAL )

objectclass ( 1.3.6.1.4.1.4203.666.3.16.6 NAME 'monitorConnection'
  DESC 'monitor connection class'
  SUP monitor STRUCTURAL )

objectclass ( 1.3.6.1.4.1.4203.666.3.16.8 NAME 'monitoredObject'
  DESC 'monitor monitored entity class'
  SUP monitor STRUCTURAL )
`;
