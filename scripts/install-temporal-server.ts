// `npm run temporal-server:install`: the pinned Temporal server and temporal-sql-tool, built once per machine.
import { execFileSync } from 'node:child_process';
import { ensureTemporalServer } from '../src/engine/temporal-server';

const rebuild = process.argv.includes('--rebuild');
const install = ensureTemporalServer({ rebuild });
const version = execFileSync(install.serverBinary, ['--version'], { encoding: 'utf8' }).trim();
process.stdout.write(
  `Temporal server: ${install.serverBinary}\n${version}\nSchema tool: ${install.sqlToolBinary}\n`,
);
