// Which gateway origins a worker pushes streamed output to (SWITCHYARD_RELAY_ORIGINS). Worker side.
import { SwitchyardError } from '../config/branded-error';

/** The environment variable naming the relay origins a worker may push to. */
export const RELAY_ORIGINS_VARIABLE = 'SWITCHYARD_RELAY_ORIGINS';

/** {@link RELAY_ORIGINS_VARIABLE} holds something that is not a list of origins. */
export class RelayOriginsError extends SwitchyardError {
  static override readonly brand: string = 'switchyard.RelayOriginsError';

  override readonly name = 'RelayOriginsError';
}

/**
 * The origins in `SWITCHYARD_RELAY_ORIGINS` (comma-separated `http(s)://host[:port]`, as the gateways' relay URLs
 * begin), or undefined when it is unset: then a worker pushes to whatever relay a routed call names. A routed
 * call's input comes from whoever may start workflows on the task queue, so without a list a worker can be made
 * to POST streamed answers to any address it can reach; with one it pushes only to its own gateways.
 * @throws RelayOriginsError naming the variable and the entry that is not an origin
 */
export function relayOriginsFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): readonly string[] | undefined {
  const raw = environment[RELAY_ORIGINS_VARIABLE]?.trim();
  if (!raw) return undefined;
  const origins = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin)
      throw new RelayOriginsError(
        `${RELAY_ORIGINS_VARIABLE} entry "${origin}" is not an origin: write http(s)://host[:port], e.g. ` +
          'http://gateway.internal:4000, comma-separated',
      );
  }
  return origins;
}

/** Whether a relay URL's origin is one of `origins`; any URL when there is no list. */
export function relayOriginAllowed(url: string, origins: readonly string[] | undefined): boolean {
  if (origins === undefined) return true;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return false;
  }
  return origins.includes(origin);
}
