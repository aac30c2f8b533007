#!/bin/sh
# The public surface as API Extractor reports it, from the built declarations of both packages:
# api/index.api.md (botbuilder-conversation-analytics), api/protocol.api.md (its ./protocol subpath)
# and endpoint/api/endpoint.api.md (botbuilder-conversation-analytics-endpoint).
#   sh scripts/api-report.sh          rewrite the reports after a deliberate change of the surface
#   sh scripts/api-report.sh --check  fail when the surface differs from the checked-in reports
set -eu
cd "$(dirname "$0")/.."
mkdir -p node_modules/.cache
mode=--local
[ "${1:-}" = "--check" ] && mode=
for config in api/index api/protocol endpoint/api/endpoint; do
  log="node_modules/.cache/api-extractor-$(basename "$config").log"
  npx --no-install api-extractor run $mode -c "$config.api-extractor.json" >"$log" 2>&1 || {
    cat "$log" >&2
    echo "The public surface of '$config' changed. If that is deliberate, run: npm run api:report, and commit $config.api.md." >&2
    exit 1
  }
done
