export { SchemeRegistry, createRegistry, parseStoredValue, DEFAULT_MAX_ITERATIONS, DEFAULT_HASH_LIMITS, MAX_LANES } from './registry.js';
export type { HashLimits, Logger, RegistryOptions, RegisteredScheme, VerifyResult, StoredValue, PasswordValue } from './registry.js';
export { loadSchemePlugin, loadSchemePlugins, registryRecipe, registryFromRecipe, type RegistryRecipe } from './plugins.js';
export { SchemeError } from './errors.js';
export { SCHEME_NAME, SCHEME_PREFIX, classifyByNames } from './scheme-name.js';
export { HashMemoryBudget, COUNTED_KIB, type BudgetState } from './memory-budget.js';
