// Unit tests: reading retry-after-ms / retry-after (seconds or HTTP date) into milliseconds.
import { parseRetryAfterMs } from '../../../src/providers/retry-after';

const NOW = Date.parse('2025-01-01T00:00:00Z');

describe('parseRetryAfterMs', () => {
  it('reads retry-after as delay-seconds', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '20' }), NOW)).toBe(20_000);
  });

  it('reads fractional seconds and rounds up to whole milliseconds', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '1.5' }), NOW)).toBe(1_500);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '0.0004' }), NOW)).toBe(1);
  });

  it('prefers retry-after-ms over retry-after', () => {
    const headers = new Headers({ 'retry-after-ms': '250', 'retry-after': '20' });
    expect(parseRetryAfterMs(headers, NOW)).toBe(250);
  });

  it('reads retry-after as an HTTP date relative to now', () => {
    const headers = new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' });
    expect(parseRetryAfterMs(headers, NOW)).toBe(30_000);
  });

  it('treats an HTTP date in the past as no wait', () => {
    const headers = new Headers({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' });
    expect(parseRetryAfterMs(headers, NOW)).toBe(0);
  });

  it('falls back to retry-after when retry-after-ms is unreadable', () => {
    const headers = new Headers({ 'retry-after-ms': 'soon', 'retry-after': '2' });
    expect(parseRetryAfterMs(headers, NOW)).toBe(2_000);
  });

  it.each([['soon'], [''], ['-5'], ['1e3']])('ignores unreadable retry-after %p', (value) => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after': value }), NOW)).toBeUndefined();
  });

  it('returns undefined without headers or without the header', () => {
    expect(parseRetryAfterMs(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfterMs(new Headers({ 'x-other': '1' }), NOW)).toBeUndefined();
  });
});
