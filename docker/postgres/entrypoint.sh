#!/bin/sh
# First start: a cluster in $PGDATA, password authentication from the network, the database POSTGRES_DB.
set -eu
# Absolute paths: su resets PATH.
bin=/usr/lib/postgresql/15/bin
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >/tmp/pwfile
  chown postgres /tmp/pwfile
  su postgres -c "$bin/initdb -D '$PGDATA' -U postgres --pwfile=/tmp/pwfile -A scram-sha-256 --auth-local=trust" >/dev/null
  rm -f /tmp/pwfile
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  su postgres -c "$bin/pg_ctl -D '$PGDATA' -w start -o '-c listen_addresses=127.0.0.1'" >/dev/null
  su postgres -c "/usr/bin/psql -q -c \"CREATE DATABASE \\\"${POSTGRES_DB:-postgres}\\\"\"" 2>/dev/null || true
  su postgres -c "$bin/pg_ctl -D '$PGDATA' -w stop" >/dev/null
fi
exec su postgres -c "exec $bin/postgres -D '$PGDATA' -c listen_addresses='*'"
