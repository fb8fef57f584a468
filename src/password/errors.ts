/** A problem the user must fix: unknown scheme, bad parameter, bad plugin. Shown as is. */
export class SchemeError extends Error {
  override name = 'SchemeError';
}
