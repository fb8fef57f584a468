/**
 * Password policy (draft-behera-ldap-password-policy-11, the last revision, July 2014): the
 * pwdPolicy class (section 5.1), the policy's attribute types (5.2) and the state the server
 * keeps on each account as operational attributes (5.3), all under 1.3.6.1.4.1.42.2.27.8.
 *
 * As in the draft, pwdAccountLockedTime and pwdFailureTime are NO-USER-MODIFICATION; leveldap
 * still lets the directory administrator write them (schema.ts's adminWritable), and lets
 * only the administrator and the entry itself read an account's state (policyState).
 * Not here: OpenLDAP's additions (pwdMaxRecordedFailure, pwdAccountTmpLockoutEnd,
 * pwdCheckModule, pwdCheckModuleArg, the pwdPolicyChecker class).
 */
export const PPOLICY_SCHEMA = `
# draft-behera-ldap-password-policy-11 5.2: the policy's attributes, in the draft's order.
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.1 NAME 'pwdAttribute'
  EQUALITY objectIdentifierMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.2 NAME 'pwdMinAge'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.3 NAME 'pwdMaxAge'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.4 NAME 'pwdInHistory'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.5 NAME 'pwdCheckQuality'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.6 NAME 'pwdMinLength'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.31 NAME 'pwdMaxLength'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.7 NAME 'pwdExpireWarning'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.8 NAME 'pwdGraceAuthNLimit'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.30 NAME 'pwdGraceExpiry'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.9 NAME 'pwdLockout'
  EQUALITY booleanMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.10 NAME 'pwdLockoutDuration'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.11 NAME 'pwdMaxFailure'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.12 NAME 'pwdFailureCountInterval'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.13 NAME 'pwdMustChange'
  EQUALITY booleanMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.14 NAME 'pwdAllowUserChange'
  EQUALITY booleanMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.15 NAME 'pwdSafeModify'
  EQUALITY booleanMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.24 NAME 'pwdMinDelay'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.25 NAME 'pwdMaxDelay'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.26 NAME 'pwdMaxIdle'
  EQUALITY integerMatch
  ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE )

# The policy subentry's class (an AUXILIARY class: the subentry's STRUCTURAL class is another).
objectclass ( 1.3.6.1.4.1.42.2.27.8.2.1 NAME 'pwdPolicy'
  SUP top AUXILIARY
  MUST pwdAttribute
  MAY ( pwdMinAge $ pwdMaxAge $ pwdInHistory $ pwdCheckQuality $
    pwdMinLength $ pwdMaxLength $ pwdExpireWarning $ pwdGraceAuthNLimit $
    pwdGraceExpiry $ pwdLockout $ pwdLockoutDuration $ pwdMaxFailure $
    pwdFailureCountInterval $ pwdMustChange $ pwdAllowUserChange $
    pwdSafeModify $ pwdMinDelay $ pwdMaxDelay $ pwdMaxIdle ) )

# draft-behera-ldap-password-policy-11 5.3: each account's state, kept by the server.
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.16 NAME 'pwdChangedTime'
  DESC 'The time the password was last changed'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.17 NAME 'pwdAccountLockedTime'
  DESC 'The time an user account was locked'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.19 NAME 'pwdFailureTime'
  DESC 'The timestamps of the last consecutive authentication failures'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.20 NAME 'pwdHistory'
  DESC 'The history of user s passwords'
  EQUALITY octetStringMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.40
  NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.21 NAME 'pwdGraceUseTime'
  DESC 'The timestamps of the grace authentication after the password has expired'
  EQUALITY generalizedTimeMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  NO-USER-MODIFICATION
  USAGE directoryOperation )

# Set by an administrator's password change, so not NO-USER-MODIFICATION.
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.22 NAME 'pwdReset'
  DESC 'The indication that the password has been reset'
  EQUALITY booleanMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.23 NAME 'pwdPolicySubentry'
  DESC 'The pwdPolicy subentry in effect for this object'
  EQUALITY distinguishedNameMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.27 NAME 'pwdStartTime'
  DESC 'The time the password becomes enabled'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.28 NAME 'pwdEndTime'
  DESC 'The time the password becomes disabled'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )

attributetype ( 1.3.6.1.4.1.42.2.27.8.1.29 NAME 'pwdLastSuccess'
  DESC 'The timestamp of the last successful authentication'
  EQUALITY generalizedTimeMatch
  ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION
  USAGE directoryOperation )
`;
