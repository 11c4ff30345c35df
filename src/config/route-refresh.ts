// How often workers and the gateway read the routes changed at runtime: the setting and its check. Pure.
import { SwitchyardError } from './branded-error';

/** Variable that sets the refresh interval. */
export const ROUTE_REFRESH_VARIABLE = 'SWITCHYARD_ROUTE_REFRESH_MS';
/** How long a copy of the runtime routes is used before the registry is read again, in milliseconds. */
export const DEFAULT_ROUTE_REFRESH_MS = 2_000;

/** `SWITCHYARD_ROUTE_REFRESH_MS` is not a whole number of milliseconds from 0 to 60 000. */
export class RouteRefreshSettingError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.RouteRefreshSettingError';

  override readonly name = 'RouteRefreshSettingError';
}

/**
 * The refresh interval `value` (the variable's text) sets, in milliseconds, else {@link DEFAULT_ROUTE_REFRESH_MS}.
 * @throws RouteRefreshSettingError for a value that is not a whole number from 0 to 60 000
 */
export function routeRefreshMsOf(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_ROUTE_REFRESH_MS;
  const milliseconds = Number(value);
  if (!Number.isInteger(milliseconds) || milliseconds < 0 || milliseconds > 60_000) {
    throw new RouteRefreshSettingError(
      `${ROUTE_REFRESH_VARIABLE} must be a whole number of milliseconds from 0 to 60000, got "${value}"`,
    );
  }
  return milliseconds;
}
