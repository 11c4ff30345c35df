// `npm run cluster:install`: what the local cluster needs — PostgreSQL (Debian's package, if missing), the pinned
// Temporal server and temporal-sql-tool (built from go.temporal.io/server once per machine), the Temporal CLI.
import { execFileSync } from 'node:child_process';
import { ensurePostgres } from '../src/engine/postgres';
import { ensureTemporalCli } from '../src/engine/temporal-cli';
import { ensureTemporalServer } from '../src/engine/temporal-server';

const postgres = ensurePostgres();
process.stdout.write(`PostgreSQL ${postgres.majorVersion}: ${postgres.directory}\n`);
const startedAt = Date.now();
const install = ensureTemporalServer({ rebuild: process.argv.includes('--rebuild') });
const version = execFileSync(install.serverBinary, ['--version'], { encoding: 'utf8' }).trim();
process.stdout.write(
  `Temporal server: ${install.serverBinary} (${version}, ready in ${Math.round((Date.now() - startedAt) / 1000)} s)\n` +
    `Schema tool:     ${install.sqlToolBinary}\nSchema:          ${install.schemaDirectory}\n`,
);
process.stdout.write(`Temporal CLI:    ${ensureTemporalCli()}\n`);
