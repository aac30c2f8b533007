#!/bin/sh
# Pack both packages as npm would publish them, then check that require() and import resolve code
# and types in each (arethetypeswrong) and that each package.json is well-formed for publishing
# (publint). test/package/install.test.ts installs the same tarballs into empty projects and runs them.
set -eu
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
middleware=$(npm pack --silent --pack-destination "$dir" | tail -n 1)
endpoint=$(npm pack --silent --pack-destination "$dir" -w endpoint | tail -n 1)
for tarball in "$middleware" "$endpoint"; do
  echo "== $tarball"
  npx --no-install attw "$dir/$tarball" --profile node16
  npx --no-install publint "$dir/$tarball" --strict
done
