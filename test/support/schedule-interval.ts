// An interval for schedules that tests run by triggering them. Test side.

/**
 * A schedule's `every` for tests that start each run with `trigger` and count the runs: Temporal aligns intervals
 * to the epoch, so with `1h` a test that spans a full hour (hh:00:00) also gets that hour's run, and counts one
 * run (or one skipped by overlap) too many. A year's interval comes due once a year.
 */
export const TRIGGERED_ONLY = '8760h';
