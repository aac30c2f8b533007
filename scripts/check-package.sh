#!/bin/sh
# Pack the package as npm would publish it, then check that both require() and import resolve
# code and types (arethetypeswrong) and that package.json is well-formed for publishing (publint).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tarball=$(npm pack --silent --pack-destination "$dir" | tail -n 1)
npx --no-install attw "$dir/$tarball" --profile node16
npx --no-install publint "$dir/$tarball" --strict
