/**
 * The canonical ISO 8601 reader behind date fields and the writer: it must agree exactly with
 * Date.parse and toISOString, or dates would be read or written differently than the platform does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalIsoTime } from '../../src/util/isoDate.js';

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

describe('canonicalIsoTime', () => {
  it('reads every canonical string as Date.parse does, and toISOString writes the same string back', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0100-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), (date) => {
        const text = date.toISOString();
        const time = canonicalIsoTime(text);
        expect(time).toBe(Date.parse(text));
        expect(new Date(time).toISOString()).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers NaN for strings toISOString would not write, so they go through Date.parse', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        (year, month, day, hour, minute, second) => {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.000Z`;
          const time = canonicalIsoTime(text);
          const parsed = Date.parse(text);
          // Either exactly what the platform reads and writes back, or NaN (left to Date.parse).
          if (!Number.isNaN(time)) {
            expect(time).toBe(parsed);
            expect(new Date(time).toISOString()).toBe(text);
          } else {
            expect(Number.isNaN(parsed) || year < 100 || new Date(parsed).toISOString() !== text).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('knows the leap years of the Gregorian calendar, centuries included', () => {
    for (const text of ['2000-02-29T00:00:00.000Z', '2024-02-29T12:00:00.000Z', '1600-02-29T00:00:00.000Z', '2023-04-30T00:00:00.000Z', '2023-12-31T23:59:59.999Z', '2023-01-31T00:00:00.000Z', '9999-12-31T00:00:00.000Z']) {
      expect(canonicalIsoTime(text), text).toBe(Date.parse(text));
    }
    for (const text of ['1900-02-29T00:00:00.000Z', '2100-02-29T00:00:00.000Z', '2023-02-29T00:00:00.000Z', '2023-04-31T00:00:00.000Z', '2023-02-30T00:00:00.000Z', '2023-12-32T00:00:00.000Z', '2023-06-31T00:00:00.000Z', '2023-01-32T00:00:00.000Z']) {
      expect(canonicalIsoTime(text), text).toBeNaN();
    }
  });

  it('answers NaN for other forms', () => {
    for (const text of ['2024-03-01', '2024-03-01T09:30:00Z', '2024-03-01T09:30:00.000+01:00', '2024-03-01 09:30:00.000Z', '2024-03-01T09:30:00.00xZ', '', 'not a date at all, no....']) {
      expect(canonicalIsoTime(text), text).toBeNaN();
    }
  });
});
