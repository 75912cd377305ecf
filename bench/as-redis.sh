#!/bin/sh
# as-redis.sh -- run another scratchpad-server binary where the comparison
# scripts start redis-server, so that two builds of Scratchpad are measured side
# by side, in alternation, in one run (a change that must not cost speed: the
# old binary against the new).
#
#   REDIS_SERVER=bench/as-redis.sh SP_AS_REDIS=/path/to/old/scratchpad-server \
#       sh bench/vs-redis.sh          (or bench/compare.sh)
#
# The scripts give redis-server a few directives Scratchpad does not have
# (--save '', --daemonize no); they are dropped, every other argument is passed
# on, and the binary replaces this shell (exec), so the PID the script stops is
# the server's.
BIN=${SP_AS_REDIS:?"set SP_AS_REDIS to the scratchpad-server binary to run"}
n=$#
while [ "$n" -gt 0 ]; do
    a=$1
    shift
    n=$((n - 1))
    case "$a" in
    --save | --daemonize)
        shift
        n=$((n - 1))
        ;;
    --version)
        echo "scratchpad-server (as redis-server) $BIN"
        exit 0
        ;;
    *) set -- "$@" "$a" ;;
    esac
done
exec "$BIN" "$@"
