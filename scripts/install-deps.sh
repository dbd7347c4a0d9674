#!/bin/sh
# Installs, with apt-get and only when missing, what wattcal's build, tests and
# demo need. Run as root on Debian/Ubuntu; elsewhere it only reports.
# Usage: install-deps.sh [test|demo] [--list]: `test` (the default, `make
# deps`) is everything the build and the tests use; `demo` (`make demo`) only
# what the demo needs: the build, gnuplot for the report's plots, python3.
# --list prints the set and installs nothing.
set -eu
# clang and its libFuzzer runtime (libclang-rt-14-dev on Debian 12): `make fuzz`.
PKGS="gcc make pkg-config libsqlite3-dev sqlite3 libcurl4-openssl-dev libcriterion-dev \
libgsl-dev libcjson-dev libyaml-dev gnuplot-nox ipmitool openipmi python3 stress-ng procps chromium \
prometheus libmicrohttpd-dev libcrypt-dev curl yamllint python3-yaml clang libclang-rt-14-dev \
prometheus-process-exporter"
DEMO_PKGS="gcc make pkg-config libsqlite3-dev libcurl4-openssl-dev libgsl-dev libcjson-dev \
libyaml-dev libmicrohttpd-dev libcrypt-dev gnuplot-nox python3"
case "${1:-test}" in
    test) ;;
    demo) PKGS=$DEMO_PKGS ;;
    *) echo "usage: $0 [test|demo] [--list]" >&2; exit 2 ;;
esac
if [ "${2:-}" = --list ]; then echo $PKGS; exit 0; fi
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
