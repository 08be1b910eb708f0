/**
 * The canonical ISO 8601 form `YYYY-MM-DDTHH:mm:ss.sssZ` (what `toISOString` writes, and most
 * servers): read without `Date.parse`, and recognised so that a date still held as such a string
 * is written as it is, never parsed and formatted back to the same text.
 */

/** The number the digits from `start` to `end` write (the form is checked first). */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

/** The canonical form, fields in range (years 0100 to 9999, months 01 to 12, days 01 to 31, 00:00 to 23:59:59). */
const CANONICAL = /^(?!00)\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3])(?::[0-5]\d){2}\.\d{3}Z$/;

/**
 * The time of a canonical ISO 8601 UTC string, exactly as `toISOString` would write it back
 * (so years 100 to 9999 and real days only); NaN for anything else, Feb 30 or 24:00 included.
 */
export function canonicalIsoTime(text: string): number {
  if (!CANONICAL.test(text)) return NaN;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const days = daysFromCivil(year, month, day);
  // A day past the month's last (Feb 30) is on or after the first of the next month.
  if (day > 28 && days >= daysFromCivil(year, month + 1, 1)) return NaN;
  return days * 86_400_000 + ((digits(text, 11, 13) * 60 + digits(text, 14, 16)) * 60 + digits(text, 17, 19)) * 1000 + digits(text, 20, 23);
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar, as Date.UTC counts them
 * (H. Hinnant's days_from_civil, its 400-year eras folded into the leap-year terms: the same
 * sum; integer arithmetic only, several times faster than Date.UTC). The year is counted from
 * March, so that a leap day ends it. Month 13 is January of the next year, and a day past the
 * month's last runs on into the next.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return y * 365 + Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400) + dayOfYear - 719_468;
}
