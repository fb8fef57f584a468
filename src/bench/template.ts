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

export function compileTemplate(template: string): Template {
  argumentsUsed(template);
  return (args) => {
    let next = 0;
    return template.replace(PLACEHOLDER, (whole: string, javaPosition?: string, pingPosition?: string) => {
      if (whole === '%%') return '%';
      const position = javaPosition ?? pingPosition;
      const index = position ? Number(position) : (next += 1);
      const value = args[index - 1];
      if (value === undefined) throw new TemplateError(`"${template}" needs argument ${index}; only ${args.length} given (-g)`);
      return value;
    });
  };
}
