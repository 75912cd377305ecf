#!/bin/sh
# Install the Debian packages named as arguments that are not installed yet.
# apt-get runs only when something is missing, so a ready machine pays nothing.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" != 0 ] && SUDO=sudo
$SUDO apt-get update -qq || exit 1
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null || exit 1
