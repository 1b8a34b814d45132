/** A date and time of day as written, before it is checked; `offsetMinutes` east of UTC. */
export interface WrittenTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  offsetMinutes: number;
}

/** An RFC 3339 date-time with its offset, as a JSON Schema pattern: what parseRfc3339 reads (whether it names an instant aside). */
export const RFC_3339_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})[Tt ](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?([Zz]|[+-]\\d{2}:\\d{2})$';
const RFC_3339 = new RegExp(RFC_3339_PATTERN);
const DAY_MINUTES = 24 * 60;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!);

/** Minutes east of UTC of `Z`, `+01:30` or `-05:00`; undefined for an offset of a day or more or minutes past 59. */
export function offsetMinutesOf(zone: string): number | undefined {
  if (zone.toUpperCase() === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * The instant a written time names, or undefined when it names none: a month or a day the
 * calendar does not have (2026-02-30 is not read as 2 March), hour 24, minute or second 60, an
 * offset of a day or more, or an instant outside the years 0001 to 9999 (which Postgres does not
 * take as a timestamptz and RFC 3339 cannot write).
 */
export function instantOf(time: WrittenTime): Date | undefined {
  const { year, month, day, hour, minute, second, millisecond, offsetMinutes } = time;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Math.abs(offsetMinutes) >= DAY_MINUTES) return undefined;
  const local = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millisecond);
  const instant = new Date(local.getTime() - offsetMinutes * 60_000);
  const utcYear = instant.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? instant : undefined;
}

/** Milliseconds of a fraction of a second as written after the point (`5` is 500, `123456` is 123). */
export const millisecondsOf = (fraction = '') => Number(fraction.padEnd(3, '0').slice(0, 3));

/**
 * An RFC 3339 date-time with its offset (`2026-11-01T00:00:00Z`, `2026-11-01 01:00:00+01:00`),
 * to the millisecond; undefined when the text is not one or names no instant (see instantOf).
 */
export function parseRfc3339(text: string): Date | undefined {
  const match = RFC_3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetMinutes = offsetMinutesOf(match[8]!);
  if (offsetMinutes === undefined) return undefined;
  return instantOf({ year, month, day, hour, minute, second, millisecond: millisecondsOf(match[7]), offsetMinutes });
}

/** Why `text` is not an instant parseRfc3339 takes, to follow the name of the field in a message. */
export function rfc3339Problem(text: string): string {
  const example = 'e.g. 2026-11-01T00:00:00Z';
  if (!RFC_3339.test(text)) return `must be an RFC 3339 date-time with an offset, ${example} (got ${JSON.stringify(text)})`;
  return `${JSON.stringify(text)} names no instant taken here: a date the calendar does not have, hour 24, minute or second 60 (leap seconds are not taken), an offset of a day or more, or a year outside 0001-9999; give a real one, ${example}`;
}
