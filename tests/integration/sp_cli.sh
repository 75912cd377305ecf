#!/bin/sh
# sp_cli.sh -- the SP.* commands through redis-cli, as an agent (or a person
# helping one) drives them from a shell: a plan written from a file with -x,
# read back by HEAD, TAIL and LINES, searched, edited, listed; a 50 KB tool
# output offloaded, previewed, searched and sliced; then a second session that
# finds everything again with commands fed on stdin, --no-raw and -3 output.
#
# The server runs on a free port of 127.0.0.1 (found with Debian's python3) in
# a temporary directory holding its log and the session's files, and is stopped
# by PID (SIGTERM, then SIGKILL after 10 s). Every redis-cli call is bounded by
# timeout(1). Prints one "ok - ..." / "not ok - ..." line per case and the totals.
set -u

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=${SERVER:-$TOP/${BUILD:-build}/scratchpad-server}
PY=/usr/bin/python3
passed=0
failed=0
SPID=""
SDIR=""

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

# check_file DESCRIPTION EXPECTED_FILE ACTUAL_FILE
check_file() {
    if cmp -s "$2" "$3"; then
        ok "$1"
    else
        notok "$1"
        echo "    $2 and $3 differ:" >&2
        cmp "$2" "$3" >&2
    fi
}

cleanup() {
    [ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null
    [ -n "$SDIR" ] && rm -rf "$SDIR"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

if ! command -v redis-cli >/dev/null 2>&1; then
    notok "redis-cli is installed (Debian package redis-tools)"
    echo "$passed passed, $failed failed"
    exit 1
fi

PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SDIR=$(mktemp -d "${TMPDIR:-/tmp}/sp-itest-XXXXXX")
(cd "$SDIR" && exec "$SERVER" --port "$PORT" --bind 127.0.0.1 >server.log 2>&1) &
SPID=$!
i=0
until [ "$(timeout 2 redis-cli -p "$PORT" PING 2>/dev/null)" = PONG ]; do
    i=$((i + 1))
    if [ $i -ge 100 ] || ! kill -0 "$SPID" 2>/dev/null; then
        notok "the server starts and answers redis-cli PING"
        cat "$SDIR/server.log" >&2
        echo "$passed passed, $failed failed"
        exit 1
    fi
    sleep 0.1
done
CLI="timeout 20 redis-cli -p $PORT"
cd "$SDIR" || exit 1

# ---- session 1: a plan ----

cat >plan.md <<'EOF'
# Plan: fix the flaky upload test
- [ ] reproduce with --count 50
- [ ] read uploader.py around the retry loop (TODO: find the timeout)
- [ ] write the fix
- [ ] run the suite — all green?
EOF

check "SP.WRITE -x stores a plan read from a file (version 1)" "1" "$($CLI -x SP.WRITE agent:1 plan <plan.md)"
$CLI SP.READ agent:1 plan >got.md
{ cat plan.md; echo; } >want.md
check_file "SP.READ gives the file back byte for byte" want.md got.md
check "SP.READ HEAD 33 gives the first 33 characters" "# Plan: fix the flaky upload test" \
    "$($CLI SP.READ agent:1 plan HEAD 33)"
check "SP.READ TAIL counts characters, not bytes (a dash of 3 bytes is 1)" "— all green?" \
    "$($CLI SP.READ agent:1 plan TAIL 13)"
check "SP.READ LINES 2 3 gives lines 2 and 3" "$(sed -n 2,3p plan.md)" "$($CLI SP.READ agent:1 plan LINES 2 3)"
check "SP.READ LINES -1 -1 gives the last line" "- [ ] run the suite — all green?" \
    "$($CLI SP.READ agent:1 plan LINES -1 -1)"
check "SP.GREP finds the line with TODO, numbered" \
    "3:- [ ] read uploader.py around the retry loop (TODO: find the timeout)" "$($CLI SP.GREP agent:1 plan 'TODO|FIXME')"
check "SP.GREP CONTEXT 1 adds numbered context lines" \
    "$(printf '%s\n' '2-- [ ] reproduce with --count 50' \
        '3:- [ ] read uploader.py around the retry loop (TODO: find the timeout)' '4-- [ ] write the fix')" \
    "$($CLI SP.GREP agent:1 plan 'todo' NOCASE CONTEXT 1)"
check "SP.EDIT ticks a box: 1 replacement, version 2" "$(printf '1\n2')" \
    "$($CLI SP.EDIT agent:1 plan '- [ ] reproduce' '- [x] reproduce')"
check "SP.EDIT of an ambiguous text names the count and the lines" \
    "ERR old text occurs 3 times in entry 'plan' (at lines 3, 4, 5): include more context to make it unique, or use ALL" \
    "$($CLI SP.EDIT agent:1 plan '- [ ]' '- [x]')"
check "SP.EDIT of a text that is not there says so" \
    "ERR old text not found in entry 'plan' (the match is byte-exact, whitespace included)" \
    "$($CLI SP.EDIT agent:1 plan 'write  the fix' 'x')"
check "SP.WRITE IFVERSION with a stale version is refused" "VERSION entry is at version 2, not 1" \
    "$($CLI SP.WRITE agent:1 plan 'lost update' IFVERSION 1)"
check "SP.INSERT -1 appends a step and replies version 3" "3" "$($CLI SP.INSERT agent:1 plan -1 '- [ ] open the PR')"
check "the inserted step is the last line" "- [ ] open the PR" "$($CLI SP.READ agent:1 plan LINES -1 -1)"
check "SP.WRITE of a bad name shows the name and the rule" \
    "ERR invalid entry name 'my plan' (7 bytes): names are 1 to 255 bytes of A-Z a-z 0-9 _ - . : / with no empty, '.' or '..' path segment" \
    "$($CLI SP.WRITE agent:1 'my plan' x)"
check "SP.LIST shows the plan and cursor 0" "$(printf '0\nplan')" "$($CLI SP.LIST agent:1)"

# ---- session 1: a large tool output ----

awk 'BEGIN { for (i = 1; i <= 2000; i++) printf "%05d GET /api/items/%d %s %dms worker=%d\n", i, i, (i % 97 == 0 ? "500" : "200"), i % 40, i % 5 }' \
    >tool.out
head -c 51200 tool.out >tool50k.out
mv tool50k.out tool.out
size=$(wc -c <tool.out | tr -d ' ')
check "the tool output to offload is 50 KB" "51200" "$size"
$CLI -x SP.OFFLOAD agent:1 <tool.out >offload.txt
check "SP.OFFLOAD stores it: stored 1" "1" "$(sed -n 2p offload.txt)"
name=$(sed -n 4p offload.txt)
check "SP.OFFLOAD names it obs-1" "obs-1" "$name"
check "SP.OFFLOAD replies its size" "51200" "$(sed -n 6p offload.txt)"
check_contains "SP.OFFLOAD's preview gives the count of characters left out" "[... 50200 characters omitted ...]" \
    "$(cat offload.txt)"
check "SP.PEEK HEAD 60 TAIL 60 shows the head, the exact count and the tail" \
    "$(head -c 60 tool.out)
[... 51080 characters omitted ...]
$(tail -c 60 tool.out)" "$($CLI SP.PEEK agent:1 "$name" HEAD 60 TAIL 60)"
$CLI SP.READ agent:1 "$name" >got.out
{ cat tool.out; echo; } >want.out
check_file "SP.READ gives the offloaded output back byte for byte" want.out got.out
check "SP.RANGE -100 gives the last 100 characters" "$(tail -c 100 tool.out)" "$($CLI SP.RANGE agent:1 "$name" -100)"
check "SP.RANGE 6 20 gives characters [6, 20)" "GET /api/items" "$($CLI SP.RANGE agent:1 "$name" 6 20)"
check "SP.READ LINES 100 102 is sed -n 100,102p" "$(sed -n 100,102p tool.out)" \
    "$($CLI SP.READ agent:1 "$name" LINES 100 102)"
errors=$(grep -c ' 500 ' tool.out)
check "SP.GREP finds every failed request (grep -c agrees)" "$errors" \
    "$($CLI SP.GREP agent:1 "$name" ' 500 \d+ms' MAX 1000 | wc -l | tr -d ' ')"
check "SP.GREP MAX 2 WITHMETA counts all matches and says it truncated" \
    "$(printf '%s\n' "$(grep -n ' 500 ' tool.out | head -2)" matched "$errors" shown 2 truncated 1)" \
    "$($CLI SP.GREP agent:1 "$name" ' 500 ' MAX 2 WITHMETA)"
check_contains "SP.STAT says the 50 KB entry is stored lz4" "$(printf 'encoding\nlz4')" "$($CLI SP.STAT agent:1 "$name")"
check "SP.OFFLOAD of a small output returns it and stores nothing" "$(printf 'stored\n0\ncontent\n3 files changed')" \
    "$($CLI SP.OFFLOAD agent:1 '3 files changed')"
check "a bad pattern is an error with its offset" "ERR invalid pattern at offset 6: missing closing parenthesis" \
    "$($CLI SP.GREP agent:1 "$name" '(GET |')"

# ---- session 2: commands on stdin, other output formats ----

printf 'SP.LIST agent:1\nSP.LIST agent:1 MATCH obs-*\nTYPE agent:1\n' | $CLI >session2.txt
check "commands fed on stdin list the session again" "$(printf '0\nobs-1\nplan\n0\nobs-1\nscratchpad')" \
    "$(cat session2.txt)"
check "--no-raw prints SP.STAT as a numbered array" ' 1) "kind"' "$($CLI --no-raw SP.STAT agent:1 plan | head -1)"
check "-3 --no-raw prints SP.INFO as a map" ' 1# "entries" => (integer) 2' "$($CLI -3 --no-raw SP.INFO agent:1 | head -1)"
check "--no-raw prints a missing entry as (nil)" "(nil)" "$($CLI --no-raw SP.READ agent:1 nosuch)"
check "SP.EXPIRE gives a scratch note a lifetime" "1" \
    "$($CLI SP.WRITE agent:1 scratch 'temporary' >/dev/null; $CLI SP.EXPIRE agent:1 scratch 100)"
check "SP.TTL reads it back" "100" "$($CLI SP.TTL agent:1 scratch)"
check "SP.PEXPIRE 1 makes it disappear at once" "" \
    "$($CLI SP.PEXPIRE agent:1 scratch 1 >/dev/null; sleep 0.05; $CLI SP.READ agent:1 scratch)"
check "GET on a scratchpad is a WRONGTYPE error" "WRONGTYPE Operation against a key holding the wrong kind of value" \
    "$($CLI GET agent:1)"
check "DEL ends the session with everything in it" "1" "$($CLI DEL agent:1)"
check "SP.LIST of the deleted session lists nothing" "0" "$($CLI SP.LIST agent:1)"

# ---- the end ----

kill -TERM "$SPID" 2>/dev/null
i=0
while kill -0 "$SPID" 2>/dev/null && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill -KILL "$SPID" 2>/dev/null
wait "$SPID"
status=$?
crash=$(grep -E -i 'segmentation|sigsegv|sigabrt|assertion|sanitizer|runtime error:|crashed' "$SDIR/server.log")
if [ "$status" -eq 0 ] && [ -z "$crash" ]; then
    ok "the server logs no crash and exits with status 0 on SIGTERM"
else
    notok "the server logs no crash and exits with status 0 on SIGTERM"
    tail -20 "$SDIR/server.log" >&2
fi
SPID=""
cd / && rm -rf "$SDIR"
SDIR=""

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
