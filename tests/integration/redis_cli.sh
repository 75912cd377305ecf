#!/bin/sh
# redis_cli.sh -- redis-cli (Debian's redis-tools) against a real server, the
# way a person at a shell uses it: one-shot commands, --raw / --no-raw output,
# RESP3 (-3), values from stdin (-x), commands from stdin, -n / -r / -e,
# --pipe mass insertion, --scan, --bigkeys, INFO, -a with requirepass, and the
# default port 6379 when it is free.
#
# Each server runs on a free port of 127.0.0.1 (found with Debian's python3) in
# a temporary directory holding its log, and is stopped by PID (SIGTERM, then
# SIGKILL after 10 s). Every redis-cli call is bounded by timeout(1). Prints one
# "ok - ..." / "not ok - ..." line per case and the totals.
set -u

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=${SERVER:-$TOP/${BUILD:-build}/scratchpad-server}
PY=/usr/bin/python3
passed=0
failed=0
PIDS=""
DIRS=""

ok() {
    echo "ok - $1"
    passed=$((passed + 1))
}

notok() {
    echo "not ok - $1"
    failed=$((failed + 1))
}

# check DESCRIPTION EXPECTED ACTUAL
check() {
    if [ "$2" = "$3" ]; then
        ok "$1"
    else
        notok "$1"
        printf '    expected: [%s]\n    got:      [%s]\n' "$2" "$3" >&2
    fi
}

# check_contains DESCRIPTION NEEDLE HAYSTACK
check_contains() {
    case "$3" in
    *"$2"*) ok "$1" ;;
    *)
        notok "$1"
        printf '    expected to contain: [%s]\n    got: [%s]\n' "$2" "$(printf '%s' "$3" | head -c 600)" >&2
        ;;
    esac
}

cleanup() {
    for p in $PIDS; do
        kill -KILL "$p" 2>/dev/null
    done
    for d in $DIRS; do
        rm -rf "$d"
    done
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

free_port() {
    $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# 0 if nothing listens on 127.0.0.1:$1 and it can be bound now.
port_free() {
    $PY -c 'import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)' "$1"
}

# start_server PORT [ARGS...]: sets SPID and SDIR; 0 once it answers PING.
start_server() {
    sport=$1
    shift
    SDIR=$(mktemp -d "${TMPDIR:-/tmp}/sp-itest-XXXXXX")
    DIRS="$DIRS $SDIR"
    (cd "$SDIR" && exec "$SERVER" --port "$sport" --bind 127.0.0.1 "$@" >server.log 2>&1) &
    SPID=$!
    PIDS="$PIDS $SPID"
    i=0
    while [ $i -lt 100 ]; do
        reply=$(timeout 2 redis-cli -p "$sport" PING 2>/dev/null)
        case "$reply" in
        PONG | NOAUTH*) kill -0 "$SPID" 2>/dev/null && return 0 ;;
        esac
        kill -0 "$SPID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    echo "    the server did not start on port $sport; its log:" >&2
    cat "$SDIR/server.log" >&2
    return 1
}

# stop_server PID DIR DESCRIPTION: SIGTERM, wait, SIGKILL after 10 s; reports
# whether it exited with status 0 and its log shows no crash.
stop_server() {
    spid=$1
    sdir=$2
    alive=yes
    kill -0 "$spid" 2>/dev/null || alive=no
    kill -TERM "$spid" 2>/dev/null
    i=0
    while kill -0 "$spid" 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$spid" 2>/dev/null
    wait "$spid"
    status=$?
    crash=$(grep -E -i 'segmentation|sigsegv|sigabrt|assertion|sanitizer|runtime error:|crashed' "$sdir/server.log")
    if [ "$alive" = yes ] && [ "$status" -eq 0 ] && [ -z "$crash" ]; then
        ok "$3"
    else
        notok "$3"
        echo "    alive=$alive status=$status; log:" >&2
        tail -20 "$sdir/server.log" >&2
    fi
}

if ! command -v redis-cli >/dev/null 2>&1; then
    notok "redis-cli is installed (Debian package redis-tools)"
    echo "$passed passed, $failed failed"
    exit 1
fi

PORT=$(free_port)
if ! start_server "$PORT"; then
    notok "the server starts and answers redis-cli PING"
    echo "$passed passed, $failed failed"
    exit 1
fi
MAIN_PID=$SPID
MAIN_DIR=$SDIR
CLI="timeout 20 redis-cli -p $PORT"

check "redis-cli PING prints PONG" "PONG" "$($CLI PING)"
check "redis-cli SET prints OK" "OK" "$($CLI SET cli:k 'hello world')"
check "redis-cli GET prints the value" "hello world" "$($CLI GET cli:k)"

out=$($CLI FOOBAR a b 2>&1)
check "an unknown command prints Redis's error text" "ERR unknown command 'FOOBAR', with args beginning with: 'a' 'b' " "$out"
out=$($CLI --no-raw FOOBAR a 2>&1)
check "--no-raw prints errors as (error) ..." "(error) ERR unknown command 'FOOBAR', with args beginning with: 'a' " "$out"
$CLI -e FOOBAR >/dev/null 2>&1
check "-e makes an error reply the exit status 1" "1" "$?"
out=$($CLI --no-raw GET 2>&1)
check "a wrong arity prints Redis's error text" "(error) ERR wrong number of arguments for 'get' command" "$out"

$CLI SET cli:nl "$(printf 'line1\nline2')" >/dev/null
check "--raw prints a value with a newline as it is" "$(printf 'line1\nline2')" "$($CLI --raw GET cli:nl)"
check "--no-raw quotes and escapes the value" '"line1\nline2"' "$($CLI --no-raw GET cli:nl)"
check "--no-raw prints a missing key as (nil)" "(nil)" "$($CLI --no-raw GET cli:missing)"
check "--no-raw prints an integer reply as (integer) N" "(integer) 1" "$($CLI --no-raw INCR cli:n)"
check "--no-raw prints an array reply with numbered lines" "$(printf '1) "hello world"\n2) (nil)')" \
    "$($CLI --no-raw MGET cli:k cli:missing)"

out=$($CLI -3 --no-raw HELLO 3 | head -3)
check "-3 speaks RESP3 and shows HELLO's map" "$(printf '1# "server" => "redis"\n2# "version" => "7.0.15"\n3# "proto" => (integer) 3')" "$out"
check "-3 prints a RESP3 null as (nil)" "(nil)" "$($CLI -3 --no-raw GET cli:missing)"
check_contains "-3 shows CLIENT INFO's verbatim string with resp=3" "resp=3" "$($CLI -3 CLIENT INFO)"

check "-x takes the last argument from stdin" "OK" "$(printf 'from stdin' | $CLI -x SET cli:x)"
check "the value read by -x is stored exactly" "from stdin" "$($CLI GET cli:x)"
printf 'a\000b\r\n' | $CLI -x SET cli:xbin >/dev/null
check "-x stores binary input (NUL, CR, LF) byte for byte" "5" "$($CLI STRLEN cli:xbin)"

out=$(printf 'SET cli:s 1\nINCR cli:s\nGET cli:s\n' | $CLI)
check "commands read from stdin run one per line in order" "$(printf 'OK\n2\n2')" "$out"

$CLI -n 3 SET cli:db three >/dev/null
check "-n 3 selects database 3" "three" "$($CLI -n 3 GET cli:db)"
check "database 0 does not see database 3's key" "" "$($CLI GET cli:db)"
check "-r 5 repeats a command five times" "$(printf '1\n2\n3\n4\n5')" "$($CLI -r 5 INCR cli:repeat)"

# --pipe: 100,000 SETs of new keys into database 9.
out=$(awk 'BEGIN { for (i = 0; i < 100000; i++) { k = "pipe:" i; v = "value-" i;
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v } }' |
    timeout 60 redis-cli -p "$PORT" -n 9 --pipe 2>&1)
check_contains "--pipe mass-inserts 100,000 SETs with no error" "errors: 0, replies: 100000" "$out"
check "the piped values are stored" "value-99999" "$($CLI -n 9 GET pipe:99999)"
check "DBSIZE counts the 100,000 piped keys" "100000" "$($CLI -n 9 DBSIZE)"

# --scan --pattern: 1,000 matching keys among 1,500.
awk 'BEGIN { for (i = 0; i < 1000; i++) { k = "scan:" i; printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length(k), k }
    for (i = 0; i < 500; i++) { k = "other:" i; printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", length(k), k } }' |
    timeout 60 redis-cli -p "$PORT" -n 4 --pipe >/dev/null 2>&1
out=$(timeout 60 redis-cli -p "$PORT" -n 4 --scan --pattern 'scan:*' | sort -u | grep -c '^scan:')
check "--scan --pattern lists each of the 1,000 matching keys" "1000" "$out"
out=$(timeout 60 redis-cli -p "$PORT" -n 4 --scan --pattern 'scan:*' | grep -v -c '^scan:')
check "--scan --pattern lists no other key" "0" "$out"
out=$(timeout 60 redis-cli -p "$PORT" -n 4 --scan | sort -u | wc -l | tr -d ' ')
check "--scan without a pattern lists all 1,500 keys" "1500" "$out"

out=$($CLI INFO server)
check_contains "INFO server shows redis_version" "redis_version:" "$out"
check_contains "INFO shows the Server section header" "# Server" "$($CLI INFO)"
check_contains "INFO keyspace counts database 9's keys" "db9:keys=100000" "$($CLI INFO keyspace)"
out=$(timeout 60 redis-cli -p "$PORT" -n 4 --bigkeys 2>&1)
check_contains "--bigkeys scans the keyspace and reports the biggest string" "Biggest string found" "$out"
check_contains "--bigkeys counts the strings" "1500 strings" "$out"

stop_server "$MAIN_PID" "$MAIN_DIR" "the server survives redis-cli's use and exits with status 0 on SIGTERM"

# A password: -a, --user/--pass, and NOAUTH without them.
PORT=$(free_port)
if start_server "$PORT" --requirepass s3cret; then
    CLI="timeout 20 redis-cli -p $PORT"
    check "without -a a command gets NOAUTH" "NOAUTH Authentication required." "$($CLI GET x 2>&1)"
    check "-a logs in" "PONG" "$($CLI -a s3cret --no-auth-warning PING 2>&1)"
    check "--user and --pass log in" "OK" "$($CLI --user default --pass s3cret --no-auth-warning SET x 1 2>&1)"
    check "a wrong -a password gets WRONGPASS" "AUTH failed: WRONGPASS invalid username-password pair or user is disabled." \
        "$($CLI -a wrong --no-auth-warning PING 2>&1 | head -1)"
    stop_server "$SPID" "$SDIR" "the password-protected server exits with status 0 on SIGTERM"
else
    notok "the server starts with --requirepass"
fi

# redis-cli with no -p talks to port 6379. That case runs only when 6379 is
# free on this machine: another developer's server may be using it, and a
# test must not touch servers it did not start (so the server that answers
# must be ours: INFO's process_id is checked before anything else is sent).
if port_free 6379; then
    if start_server 6379 && [ "$(timeout 20 redis-cli INFO server | tr -d '\r' | grep '^process_id:')" = "process_id:$SPID" ]; then
        check "redis-cli with no -p reaches a server on port 6379" "PONG" "$(timeout 20 redis-cli PING 2>&1)"
        check "redis-cli with no -p sets and reads a key there" "OK v" \
            "$(timeout 20 redis-cli SET cli:default v) $(timeout 20 redis-cli GET cli:default)"
        stop_server "$SPID" "$SDIR" "the server on port 6379 exits with status 0 on SIGTERM"
    elif port_free 6379; then
        notok "the server starts on port 6379"
    else
        # Another process took port 6379 in the meantime: the case is left out.
        kill -KILL "$SPID" 2>/dev/null
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
