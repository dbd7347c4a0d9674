#!/bin/sh
# Installs, with apt-get and only when missing, what wattcal's build, tests and
# demo need. Run as root on Debian/Ubuntu; elsewhere it only reports.
set -eu
# clang and its libFuzzer runtime (libclang-rt-14-dev on Debian 12): `make fuzz`.
PKGS="gcc make pkg-config libsqlite3-dev sqlite3 libcurl4-openssl-dev libcriterion-dev \
libgsl-dev libcjson-dev libyaml-dev gnuplot-nox ipmitool openipmi python3 stress-ng procps chromium \
prometheus clang libclang-rt-14-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "wattcal: missing packages:$missing (install them as root with apt-get)" >&2
    exit 1
fi
echo "wattcal: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends $missing >/dev/null
