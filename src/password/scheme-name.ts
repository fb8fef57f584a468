/** A scheme name as it may stand in braces: `{PBKDF2-SHA256}`. */
export const SCHEME_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `{NAME}` at the start of a stored value. */
export const SCHEME_PREFIX = /^\{([A-Za-z0-9][A-Za-z0-9._-]{0,63})\}/;
