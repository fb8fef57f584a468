export { SchemeRegistry, createRegistry, parseStoredValue, DEFAULT_MAX_ITERATIONS } from './registry.js';
export type { Logger, RegistryOptions, RegisteredScheme, VerifyResult, StoredValue, PasswordValue } from './registry.js';
export { loadSchemePlugin, loadSchemePlugins, registryRecipe, registryFromRecipe, type RegistryRecipe } from './plugins.js';
export {
  DEFAULT_SCHEME, DEFAULT_POLICY, POLICY_SETTINGS, resolveDefaultScheme, isClearScheme, flagOf, settingProblem, policyParams, checkPolicy,
  rehashRule, rehashReason,
} from './policy.js';
export type { PasswordPolicy, PolicySetting, RehashRule } from './policy.js';
export { VerifiedBindCache } from './bind-cache.js';
export { SchemeError } from './errors.js';
export { SCHEME_NAME, SCHEME_PREFIX } from './scheme-name.js';
