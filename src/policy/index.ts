/** The password policy: its settings (settings.ts) and its state at run time (runtime.ts: lockout, bind cache, re-encoding, decoys). */
export {
  DEFAULT_SCHEME, DEFAULT_POLICY, POLICY_SETTINGS, resolveDefaultScheme, isClearScheme, flagOf, settingProblem, policyParams, checkPolicy,
  rehashRule, rehashReason,
} from './settings.js';
export type { PasswordPolicy, PolicySetting, RehashRule } from './settings.js';
export { VerifiedBindCache } from './bind-cache.js';
export { createPolicyRuntime, type PolicyRuntime } from './runtime.js';
