#!/bin/sh
# Creates Temporal's two PostgreSQL databases and brings their schemas up to this server version. Safe to re-run.
# Runs in temporalio/admin-tools (docker-compose.yml service `temporal-schema`), and on this machine for the local
# cluster (src/engine/temporal-cluster.ts) with the project's own temporal-sql-tool build and SCHEMA_ROOT.
set -eu
: "${POSTGRES_SEEDS:?POSTGRES_SEEDS must name the PostgreSQL host}"
: "${POSTGRES_USER:?POSTGRES_USER must be set}"
: "${SQL_PASSWORD:?SQL_PASSWORD must be set}"
PORT="${DB_PORT:-5432}"
SCHEMA_ROOT="${SCHEMA_ROOT:-/etc/temporal/schema/postgresql/v12}"

# The image has nc; a caller without it (the local cluster) has waited for PostgreSQL itself.
if command -v nc >/dev/null 2>&1; then
  until nc -z "$POSTGRES_SEEDS" "$PORT"; do
    echo "waiting for PostgreSQL at $POSTGRES_SEEDS:$PORT"
    sleep 1
  done
fi

for pair in temporal:temporal temporal_visibility:visibility; do
  database="${pair%%:*}"
  schema="${pair#*:}"
  sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$PORT" --db "$database" "$@"; }
  # On a second start the database exists and `create` says so; the schema steps below still check it.
  sql create || echo "database $database exists already"
  sql setup-schema -v 0.0
  sql update-schema -d "$SCHEMA_ROOT/$schema/versioned"
  echo "database $database is up to date"
done
