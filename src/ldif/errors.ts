/** A problem in an LDIF file. The message always starts `line N: ` and says what is wrong. */
export class LdifError extends Error {
  override name = 'LdifError';
  readonly line: number;

  constructor(line: number, problem: string) {
    super(`line ${line}: ${problem}`);
    this.line = line;
  }
}

/** A line's text for an error message: decoded leniently, shortened, quoted. */
export function quoteLine(bytes: Buffer | string): string {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8', 0, Math.min(bytes.length, 240));
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
}
