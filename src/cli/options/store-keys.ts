/** The --config file's store keys (beside the password policy's): one name per flag of store.ts. */
export const STORE_KEYS = ['store', 'nodeName', 'maxStaleness'] as const;
export type StoreKey = (typeof STORE_KEYS)[number];
