/**
 * DN and filter templates of authrate: Java String.format style (`%s`, `%d`, `%2$s`, `%%`), as in
 * OpenDJ 4 and OpenIdentityPlatform, and PingDS style (`{}` the next argument, `{N}` 1-based).
 */

export type Template = (args: readonly string[]) => string;

export class TemplateError extends Error {
  override name = 'TemplateError';
}

const PLACEHOLDER = /%%|%(?:(\d+)\$)?[sd]|\{(\d*)\}/g;

/** How many arguments a template uses (the highest position it names). */
export function argumentsUsed(template: string): number {
  let next = 0;
  let highest = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (match[0] === '%%') continue;
    const position = match[1] ?? match[2];
    const index = position ? Number(position) : (next += 1);
    if (index < 1) throw new TemplateError(`"${template}": argument positions start at 1`);
    highest = Math.max(highest, index);
  }
  return highest;
}

/**
 * Splits the template once into literal text and argument positions, so that filling it in (once
 * per bind) is string concatenation, not a regular-expression pass.
 */
export function compileTemplate(template: string): Template {
  argumentsUsed(template);
  const literals: string[] = [];
  const positions: number[] = [];
  let literal = '';
  let next = 0;
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    literal += template.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '%%') {
      literal += '%';
      continue;
    }
    const position = match[1] ?? match[2];
    positions.push(position ? Number(position) : (next += 1));
    literals.push(literal);
    literal = '';
  }
  const tail = literal + template.slice(last);
  return (args) => {
    let text = '';
    for (let i = 0; i < positions.length; i += 1) {
      const value = args[positions[i]! - 1];
      if (value === undefined) throw new TemplateError(`"${template}" needs argument ${positions[i]}; only ${args.length} given (-g)`);
      text += literals[i]! + value;
    }
    return text + tail;
  };
}
