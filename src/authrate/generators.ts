/**
 * authrate's `-g` argument generators, with OpenDJ's meanings (PerformanceRunner/DataSource):
 * `rand(min,max)` a random integer in [min, max) (max excluded, as OpenDJ's nextInt does),
 * `inc(min,max)` min, min+1, .., max, then min again (inclusive, one sequence per worker),
 * `rand(file)` / `inc(file)` a random / the next line of a file, `randstr(len[,charset])` a random
 * string (charset default [A-Za-z0-9]), anything else a static value.
 */
import { readFileSync } from 'node:fs';
import { errorCode } from '../errors.js';

/** Makes the values for one worker (inc sequences are per worker). */
export type Generator = () => string;
export type GeneratorFactory = () => Generator;

export class GeneratorError extends Error {
  override name = 'GeneratorError';
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The longest randstr value: a value is sent in one request, and a longer one only blocks the tool. */
export const MAX_RANDSTR_LENGTH = 1 << 20;

function integerArg(text: string, spec: string): number {
  if (!/^-?[0-9]+$/.test(text.trim())) throw new GeneratorError(`${spec}: "${text}" is not an integer`);
  const value = Number(text.trim());
  // Beyond 2^53 integers are no longer exact (rand gave 4.04e+22, inc stuck at 2^53).
  if (!Number.isSafeInteger(value)) throw new GeneratorError(`${spec}: "${text}" is beyond ${Number.MAX_SAFE_INTEGER}`);
  return value;
}

function randomInteger(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min));
}

function range(args: string[], spec: string): [number, number] {
  if (args.length !== 2) throw new GeneratorError(`${spec}: expected two integers`);
  const [min, max] = [integerArg(args[0]!, spec), integerArg(args[1]!, spec)];
  if (max < min) throw new GeneratorError(`${spec}: max is smaller than min`);
  return [min, max];
}

function fileLines(file: string, spec: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new GeneratorError(`${spec}: cannot read ${file}: ${errorCode(error) ?? String(error)}`);
  }
  const lines = text.split(/\r?\n/).filter((line) => line !== '');
  if (lines.length === 0) throw new GeneratorError(`${spec}: ${file} has no lines`);
  return lines;
}

function randFactory(args: string[], spec: string): GeneratorFactory {
  if (args.length === 1) {
    const lines = fileLines(args[0]!, spec);
    return () => () => lines[Math.floor(Math.random() * lines.length)]!;
  }
  const [min, max] = range(args, spec);
  if (max === min) throw new GeneratorError(`${spec}: the range is empty (max is excluded)`);
  return () => () => String(randomInteger(min, max));
}

function incFactory(args: string[], spec: string): GeneratorFactory {
  if (args.length === 1) {
    const lines = fileLines(args[0]!, spec);
    return () => {
      let next = 0;
      return () => lines[next++ % lines.length]!;
    };
  }
  const [min, max] = range(args, spec);
  return () => {
    let next = min;
    return () => {
      const value = next;
      next = next >= max ? min : next + 1;
      return String(value);
    };
  };
}

function randstrFactory(args: string[], spec: string): GeneratorFactory {
  if (args.length < 1 || args.length > 2) throw new GeneratorError(`${spec}: expected randstr(length[,charset])`);
  const length = integerArg(args[0]!, spec);
  if (length < 1 || length > MAX_RANDSTR_LENGTH) throw new GeneratorError(`${spec}: the length must be from 1 to ${MAX_RANDSTR_LENGTH}`);
  // By character, not UTF-16 unit: a character beyond the BMP is one choice, never half of one.
  const charset = [...(args[1] ?? ALPHANUMERIC)];
  if (charset.length === 0) throw new GeneratorError(`${spec}: the charset is empty`);
  return () => () => {
    let text = '';
    for (let i = 0; i < length; i += 1) text += charset[Math.floor(Math.random() * charset.length)];
    return text;
  };
}

const FUNCTIONS: Record<string, (args: string[], spec: string) => GeneratorFactory> = {
  rand: randFactory, inc: incFactory, randstr: randstrFactory,
};

const CALL = /^(rand|inc|randstr)\((.*)\)$/;

/** Is this a generator function (rand, inc, randstr), not a static value? */
export function isGeneratorCall(spec: string): boolean {
  return CALL.test(spec.trim());
}

/** Parses one `-g` value. */
export function parseGenerator(spec: string): GeneratorFactory {
  const call = CALL.exec(spec.trim());
  if (!call) return () => () => spec;
  return FUNCTIONS[call[1]!]!(call[2]!.split(','), spec);
}
