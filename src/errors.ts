/** What a thrown value says, whatever was thrown: every layer's error messages go through these. */

/** The message of an Error, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A system error's code (ENOENT, EACCES, ...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The thrown value as an Error (wrapped when it is not one). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
