import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BadRequestError } from '../../src/errors.js';
import { nextTick, normalizeSchedule } from '../../src/monitors/schedule.js';

/** The 400 a schedule is refused with: a BadRequestError whose message starts with the field. */
function refusal(input: Parameters<typeof normalizeSchedule>[0], field = 'schedule'): string {
  try {
    normalizeSchedule(input, field);
  } catch (err) {
    assert.ok(err instanceof BadRequestError, String(err));
    return err.message;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

const at = (iso: string): number => Date.parse(iso);

describe('plain-text schedules', () => {
  const forms: [string, string][] = [
    ['every 30 minutes', '*/30 * * * *'],
    ['every 1 minute', '* * * * *'],
    ['every minute', '* * * * *'],
    ['every 10 seconds', '*/10 * * * * *'],
    ['every 1 second', '* * * * * *'],
    ['every 120 seconds', '*/2 * * * *'],
    ['every 2 hours', '0 */2 * * *'],
    ['every hour', '0 * * * *'],
    ['every 24 hours', '0 0 * * *'],
    ['every 1 day', '0 0 * * *'],
    ['every 7 days', '0 0 * * 0'],
    ['every day', '0 0 * * *'],
    ['hourly', '0 * * * *'],
    ['daily', '0 0 * * *'],
    ['weekly', '0 0 * * 0'],
    ['monthly', '0 0 1 * *'],
    ['daily at 9am', '0 9 * * *'],
    ['daily at 9:30', '30 9 * * *'],
    ['daily at 9:00', '0 9 * * *'],
    ['every day at 17:00', '0 17 * * *'],
    ['at 9am every day', '0 9 * * *'],
    ['every monday at 9am', '0 9 * * 1'],
    ['weekdays at 8:30am', '30 8 * * 1-5'],
    ['every weekday at 8:30 am', '30 8 * * 1-5'],
    ['weekends at noon', '0 12 * * 0,6'],
    ['weekly on friday at 5pm', '0 17 * * 5'],
    ['every mon, wed and fri at 7am', '0 7 * * 1,3,5'],
    ['mondays at 12am', '0 0 * * 1'],
    ['monthly at 6pm', '0 18 1 * *'],
    ['  Every  30  MINUTES ', '*/30 * * * *'],
    ['Daily At 9AM', '0 9 * * *'],
  ];
  for (const [text, cron] of forms) {
    test(`"${text}" is ${cron}`, () => {
      assert.deepEqual(normalizeSchedule({ text }), { cron, timezone: 'UTC' });
    });
  }

  test('text cron cannot express, or cannot read, is a 400 naming schedule.text', () => {
    assert.match(refusal({ text: 'every 45 seconds' }), /^schedule\.text: .*evenly spaced.*1, 2, 3, 4, 5, 6/);
    assert.match(refusal({ text: 'every 7 hours' }), /^schedule\.text: /);
    assert.match(refusal({ text: 'every 3 days' }), /^schedule\.text: .*1 or 7 days/);
    assert.match(refusal({ text: 'every 0 minutes' }), /^schedule\.text: .*≥ 1/);
    for (const text of [
      'whenever',
      'every 5 fortnights',
      'daily at 25:00',
      'at 13pm',
      'every funday at 9am',
      '',
    ]) {
      assert.match(
        refusal({ text }),
        /^schedule\.text: cannot read .*"every 30 minutes".*"daily at 9am"/,
        text,
      );
    }
  });
});

describe('cron schedules', () => {
  test('5 and 6 fields are kept, spaces collapsed', () => {
    assert.deepEqual(normalizeSchedule({ cron: ' */15  * * * * ' }), {
      cron: '*/15 * * * *',
      timezone: 'UTC',
    });
    assert.deepEqual(normalizeSchedule({ cron: '*/5 * * * * *', timezone: 'Europe/Paris' }), {
      cron: '*/5 * * * * *',
      timezone: 'Europe/Paris',
    });
    assert.equal(normalizeSchedule({ cron: '0 9 * * mon-fri' }).cron, '0 9 * * mon-fri');
  });

  test('a wrong number of fields, a bad value, a date that never comes or a hash is a 400 naming schedule.cron', () => {
    assert.match(refusal({ cron: '* * * *' }), /^schedule\.cron: .*4 field\(s\); a cron has 5/);
    assert.match(refusal({ cron: '0 0 0 1 1 * 2030' }), /^schedule\.cron: .*7 field/);
    assert.match(refusal({ cron: '@daily' }), /^schedule\.cron: /);
    assert.match(refusal({ cron: '61 * * * *' }), /^schedule\.cron: "61 \* \* \* \*" is not a valid cron/);
    assert.match(refusal({ cron: '0 0 30 2 *' }), /^schedule\.cron: /);
    assert.match(refusal({ cron: 'H * * * *' }), /^schedule\.cron: hashed/);
    assert.match(refusal({ cron: 'a b c d e' }), /^schedule\.cron: /);
  });

  test('exactly one of cron and text, under the caller’s field name', () => {
    assert.match(refusal({ cron: '* * * * *', text: 'hourly' }), /^schedule: give exactly one of cron/);
    assert.match(refusal({}), /^schedule: give exactly one/);
    assert.match(refusal({ timezone: 'UTC' }, 'body.schedule'), /^body\.schedule: /);
    assert.match(refusal({ text: 'sometimes' }, 'body.schedule'), /^body\.schedule\.text: /);
  });
});

describe('time zones', () => {
  test('an IANA name is kept in its canonical spelling; UTC by default', () => {
    assert.equal(normalizeSchedule({ text: 'hourly' }).timezone, 'UTC');
    assert.equal(normalizeSchedule({ text: 'hourly', timezone: 'europe/paris' }).timezone, 'Europe/Paris');
    assert.equal(
      normalizeSchedule({ text: 'hourly', timezone: 'America/New_York' }).timezone,
      'America/New_York',
    );
  });

  test('an unknown zone is a 400 naming schedule.timezone', () => {
    assert.match(
      refusal({ text: 'hourly', timezone: 'Mars/Olympus' }),
      /^schedule\.timezone: "Mars\/Olympus"/,
    );
    assert.match(refusal({ cron: '* * * * *', timezone: '' }), /^schedule\.timezone: /);
  });
});

describe('nextTick', () => {
  test('strictly after the given time, on a tick or between ticks', () => {
    const noon = at('2025-01-01T12:00:00.000Z');
    assert.equal(nextTick('* * * * *', 'UTC', noon), noon + 60_000);
    assert.equal(nextTick('* * * * *', 'UTC', noon + 30_500), noon + 60_000);
    assert.equal(nextTick('* * * * * *', 'UTC', noon), noon + 1000);
    assert.equal(nextTick('* * * * * *', 'UTC', noon + 500), noon + 1000);
    assert.equal(nextTick('*/30 * * * *', 'UTC', noon + 1), at('2025-01-01T12:30:00.000Z'));
  });

  test('a time zone that observes daylight saving time keeps the wall-clock hour across the change', () => {
    const paris = normalizeSchedule({ text: 'daily at 9am', timezone: 'Europe/Paris' });
    assert.equal(
      nextTick(paris.cron, paris.timezone, at('2025-01-15T00:00:00Z')),
      at('2025-01-15T08:00:00Z'),
    );
    assert.equal(
      nextTick(paris.cron, paris.timezone, at('2025-07-15T00:00:00Z')),
      at('2025-07-15T07:00:00Z'),
    );
    // New York moves to EDT on 9 March 2025: 9am is 14:00 UTC the day before, 13:00 UTC that day.
    const ny = normalizeSchedule({ cron: '0 9 * * *', timezone: 'America/New_York' });
    const saturday = nextTick(ny.cron, ny.timezone, at('2025-03-08T00:00:00Z'));
    assert.equal(saturday, at('2025-03-08T14:00:00Z'));
    assert.equal(nextTick(ny.cron, ny.timezone, saturday), at('2025-03-09T13:00:00Z'));
  });

  test('weekdays skip the weekend in the monitor’s zone', () => {
    const { cron, timezone } = normalizeSchedule({ text: 'weekdays at 8:30am', timezone: 'Asia/Tokyo' });
    // Friday 2025-01-03 08:30 JST is 2025-01-02T23:30Z; the next is Monday 2025-01-06 08:30 JST.
    const friday = at('2025-01-02T23:30:00Z');
    assert.equal(nextTick(cron, timezone, friday - 1), friday);
    assert.equal(nextTick(cron, timezone, friday), at('2025-01-05T23:30:00Z'));
  });
});
