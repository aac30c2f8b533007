#!/bin/sh
# The database tests (endpoint/test/store, and every test run on both databases) need a real PostgreSQL
# server. They use TRACKING_TEST_DATABASE_URL, else the local server at 127.0.0.1:5432 (user postgres,
# trust auth, database test) that every machine of this project runs. When that does not answer, this
# starts it, or installs Debian's postgresql and starts it, where the machine allows (root); otherwise it
# fails saying what to do. Runs before `npm test`: the PostgreSQL tests never skip.
set -eu
cd "$(dirname "$0")/.."
answers() { node scripts/pg-ping.mjs "$1" 2>/dev/null; }
if [ -n "${TRACKING_TEST_DATABASE_URL:-}" ]; then
  node scripts/pg-ping.mjs "$TRACKING_TEST_DATABASE_URL" && exit 0
  echo "TRACKING_TEST_DATABASE_URL does not answer (above). Point it at a PostgreSQL server whose user may create databases, or unset it to use the local server." >&2
  exit 1
fi
URL=postgres://postgres@127.0.0.1:5432/test
answers "$URL" && exit 0
if [ "$(id -u)" = 0 ]; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's postgresql for the database tests..." >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    version=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -n 1)
    if [ -z "$version" ]; then
      version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
      pg_createcluster "$version" main >/dev/null
    fi
    hba="/etc/postgresql/$version/main/pg_hba.conf"
    # The tests connect as postgres over TCP without a password, as on the project's machines.
    grep -q 'botbuilder-conversation-analytics tests' "$hba" || sed -i '1i host all postgres 127.0.0.1/32 trust # botbuilder-conversation-analytics tests' "$hba"
    echo "Starting the local PostgreSQL $version for the database tests..." >&2
    pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || pg_ctlcluster --skip-systemctl-redirect "$version" main reload
    i=0
    until answers postgres://postgres@127.0.0.1:5432/postgres || [ $i -ge 30 ]; do sleep 0.5; i=$((i + 1)); done
    answers "$URL" || su postgres -c "createdb -h 127.0.0.1 test" >/dev/null 2>&1 || true
    answers "$URL" && exit 0
  fi
fi
node scripts/pg-ping.mjs "$URL" || true
echo "The database tests need PostgreSQL 13 or newer: run one at 127.0.0.1:5432 (user postgres, trust auth, database test; Debian: apt-get install postgresql, as root npm test does it itself), or set TRACKING_TEST_DATABASE_URL=postgres://user:password@host:5432/db to a server whose user may create databases." >&2
exit 1
