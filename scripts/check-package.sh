#!/bin/sh
# Pack the package as npm would publish it, then check that both require() and import resolve
# code and types (arethetypeswrong) and that package.json is well-formed for publishing (publint).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tarball=$(npm pack --silent --pack-destination "$dir" | tail -n 1)
npx --no-install attw "$dir/$tarball" --profile node16
npx --no-install publint "$dir/$tarball" --strict

# And for real: install the tarball in an empty project and load it both ways.
mkdir "$dir/consumer"
cd "$dir/consumer"
echo '{"name":"consumer","version":"1.0.0","private":true}' > package.json
npm install --no-audit --no-fund --ignore-scripts --loglevel=error "$dir/$tarball" >/dev/null
node -e "const m = require('botbuilder-conversation-analytics'); const e = require('botbuilder-conversation-analytics/endpoint'); if (typeof m.TrackingClient !== 'function' || typeof m.TrackingMiddleware !== 'function' || typeof e.startTrackingEndpoint !== 'function') process.exit(1); console.log('require(): ok')"
node --input-type=module -e "import { TrackingClient, TrackingMiddleware } from 'botbuilder-conversation-analytics'; import { startTrackingEndpoint } from 'botbuilder-conversation-analytics/endpoint'; if (typeof TrackingClient !== 'function' || typeof TrackingMiddleware !== 'function' || typeof startTrackingEndpoint !== 'function') process.exit(1); console.log('import: ok')"
./node_modules/.bin/botbuilder-conversation-analytics --help >/dev/null && echo 'bin: ok'
