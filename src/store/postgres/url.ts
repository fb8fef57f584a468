/**
 * What the command line needs to know about a PostgreSQL store without loading its client: a
 * URL is told apart, and serve's --max-staleness default. (Loading `pg` and the rest of
 * postgres/ takes about 0.15 s; a LevelDB-only command no longer pays it.)
 */

/** Seconds a node serves reads from its copy without hearing from PostgreSQL: serve's --max-staleness default. */
export const DEFAULT_MAX_STALENESS = 30;

/** Is this a PostgreSQL URL (--store)? */
export const isPostgresUrl = (store: string): boolean => /^postgres(ql)?:\/\//.test(store);
