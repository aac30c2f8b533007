#!/bin/sh
# The browser tests (endpoint/test/page) drive Debian's Chromium. Install it when it is missing and this
# machine can (root with apt-get); otherwise say what to install. Runs before `npm test`.
set -eu
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser tests (endpoint/test/page)..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The browser tests need Chromium at /usr/bin/chromium: install Debian's 'chromium' package (apt-get install chromium)." >&2
exit 1
