/**
 * GeneralizedTime (RFC 4517 3.3.13): written as OpenLDAP writes it, read leniently (filters,
 * lockout), and checked strictly (values a client writes).
 */

/** GeneralizedTime as OpenLDAP writes it: YYYYMMDDHHMMSSZ in UTC, or YYYYMMDDHHMMSS.mmmZ with milliseconds. */
export function generalizedTime(date: Date = new Date(), milliseconds = false): string {
  const text = date.toISOString().replace(/[-:T]/g, '');
  return milliseconds ? text : text.replace(/\.\d+Z$/, 'Z');
}

const TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(?:(\d{2})(\d{2})?)?(?:[.,](\d+))?(Z|[+-]\d{2}(?:\d{2})?)?$/i;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** A time zone 'Z', '+hh' or '-hhmm' as minutes east of UTC; no zone is taken as UTC. */
function zoneMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = zone.length > 3 ? Number(zone.slice(3, 5)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** The time as milliseconds since the epoch and the zone as written, or undefined when it does not parse. */
function parse(text: string): { readonly millis: number; readonly zone: string | undefined } | undefined {
  const match = TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour] = match.slice(1, 5).map(Number) as [number, number, number, number];
  const minute = match[5] === undefined ? 0 : Number(match[5]);
  const second = match[6] === undefined ? 0 : Number(match[6]);
  const offset = zoneMinutes(match[8]);
  if (offset === undefined || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const unit = match[6] !== undefined ? 1000 : match[5] !== undefined ? 60_000 : 3_600_000;
  const fraction = match[7] === undefined ? 0 : Number(`0.${match[7]}`) * unit;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return { millis: date.getTime() + fraction - offset * 60_000, zone: match[8] };
}

/**
 * A GeneralizedTime as milliseconds since the epoch, UTC, fractions kept:
 * `YYYYMMDDHH[MM[SS]][(.|,)fraction][Z|+hh[mm]|-hh[mm]]`. The fraction is of the last unit
 * given; surrounding spaces, a lower-case 'z' and a missing zone (read as UTC) are accepted
 * (lenient: for filters and stored values). Undefined when it does not parse.
 */
export function parseGeneralizedTime(value: Buffer): number | undefined {
  return parse(value.toString('utf8').trim())?.millis;
}

/**
 * Whether a value is a GeneralizedTime exactly as RFC 4517 spells it, as slapd checks values
 * written to a GeneralizedTime attribute: the zone ('Z', '+hh[mm]' or '-hh[mm]') required, no
 * spaces. OpenLDAP's `000001010000Z` (an account locked by an administrator) is one.
 */
export function isGeneralizedTime(value: Buffer): boolean {
  const parsed = parse(value.toString('utf8'));
  return parsed !== undefined && parsed.zone !== undefined && parsed.zone !== 'z';
}
