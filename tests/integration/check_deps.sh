#!/bin/sh
# check_deps.sh -- `make check-deps` (tests/check_deps.py) passes on the tree and
# fails, naming the file, the line and the rule, on a copy of the tree with one
# forbidden #include planted for each of its seven rules.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
DIR=$(mktemp -d /tmp/check_deps.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
OUT="$DIR/out.txt"

result() {
    sentence=$1; shift
    if "$@"; then
        echo "ok - $sentence"
    else
        echo "not ok - $sentence"
        sed 's/^/    /' "$OUT"
    fi
}

"$PY" "$TOP/tests/check_deps.py" "$TOP" >"$OUT" 2>&1
rc=$?
result "the tree keeps every layering rule" [ "$rc" -eq 0 ]

# plant RULE FILE INCLUDE SENTENCE: a fresh copy of the tree with FILE's first
# line followed by #include "INCLUDE"; the check must fail on FILE:2 with RULE.
plant() {
    rule=$1 file=$2 inc=$3 sentence=$4
    rm -rf "$DIR/tree"
    mkdir -p "$DIR/tree"
    cp -r "$TOP/server" "$TOP/persistence" "$DIR/tree/"
    sed -i "1a #include \"$inc\"" "$DIR/tree/$file"
    "$PY" "$TOP/tests/check_deps.py" "$DIR/tree" >"$OUT" 2>&1
    rc=$?
    result "$sentence" sh -c "[ $rc -eq 1 ] && grep -q '^$file:2: rule $rule ' '$OUT'"
}

plant 1 server/core/ht.c server.h "a core module that includes server.h fails rule 1"
plant 2 persistence/aof_writer.c ../server/keyspace/db.h "the log library including the keyspace fails rule 2"
plant 3 server/keyspace/db.c cmd/commands.h "the keyspace including the command layer fails rule 3"
plant 3 server/types/string/value.c net/reply.h "a type's own API including the reply encoder fails rule 3"
plant 4 server/net/resp.c types/string/value.h "the connection layer including a type fails rule 4"
plant 5 server/types/string/cmd_string.c aof/persist.h "a command family including the log fails rule 5"
plant 6 server/aof/persist_load.c net/net.h "the server's log including the connection layer fails rule 6"
plant 7 server/types/sp/cmd_sp.c types/string/value.h "one type including another's folder fails rule 7"
# A violation through a header: net/ reaches cmd/ if a header it includes does.
plant 4 server/net/client.h cmd/multi.h "a violation reached through a header is found (rule 4 via net/client.h)"
