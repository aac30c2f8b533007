#!/bin/sh
# The public surface as API Extractor reports it, from the built declarations (dist/*.d.ts):
# api/index.api.md (the package root) and api/endpoint.api.md (the ./endpoint subpath).
#   sh scripts/api-report.sh          rewrite the reports after a deliberate change of the surface
#   sh scripts/api-report.sh --check  fail when the surface differs from the checked-in reports
set -eu
cd "$(dirname "$0")/.."
mkdir -p node_modules/.cache
mode=--local
[ "${1:-}" = "--check" ] && mode=
for entry in index endpoint; do
  npx --no-install api-extractor run $mode -c "api/$entry.api-extractor.json" >"node_modules/.cache/api-extractor-$entry.log" 2>&1 || {
    cat "node_modules/.cache/api-extractor-$entry.log" >&2
    echo "The public surface of '$entry' changed. If that is deliberate, run: npm run api:report, and commit api/$entry.api.md." >&2
    exit 1
  }
done
