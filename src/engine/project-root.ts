// The project root: the nearest folder above this file with a package.json. Node side.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Project root, found from both `src/engine` and `dist/src/engine`. */
export function projectRoot(): string {
  let directory = __dirname;
  while (!existsSync(path.join(directory, 'package.json')) && path.dirname(directory) !== directory) {
    directory = path.dirname(directory);
  }
  return directory;
}
