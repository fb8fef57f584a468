export { SchemeRegistry, createRegistry, parseStoredValue, DEFAULT_MAX_ITERATIONS } from './registry.js';
export type { Logger, RegistryOptions, RegisteredScheme, VerifyResult, StoredValue, PasswordValue } from './registry.js';
export { loadSchemePlugin, loadSchemePlugins, registryRecipe, registryFromRecipe, type RegistryRecipe } from './plugins.js';
export { SchemeError } from './errors.js';
export { SCHEME_NAME, SCHEME_PREFIX } from './scheme-name.js';
