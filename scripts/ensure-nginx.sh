#!/bin/sh
# The deployment guide's test (endpoint/test/deploy) runs nginx with the guide's configuration.
# Install Debian's nginx-light when nginx is missing and this machine can (root with apt-get);
# otherwise say what to install. Runs before `npm test`. (Installing it does not start it here.)
set -eu
[ -x /usr/sbin/nginx ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's nginx-light for the deployment guide's test (endpoint/test/deploy)..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null 2>&1 || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
  }
  # A package's own start (where there is an init system) would hold port 80: this project runs its own.
  if command -v service >/dev/null 2>&1; then service nginx stop >/dev/null 2>&1 || true; fi
  exit 0
fi
echo "The deployment guide's test needs nginx at /usr/sbin/nginx: install Debian's 'nginx-light' package (apt-get install nginx-light)." >&2
exit 1
