#!/bin/sh
# check_aof.sh -- scratchpad-check-aof against good, torn and corrupt logs.
#
# The fixtures are written by the unit-test binary (test_aof --write-fixtures
# DIR), which also writes DIR/expect.sh: the offsets and counts the tool must
# report. Each case prints "ok - <sentence>" or "not ok - <sentence>".
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CHECK_AOF=${CHECK_AOF:-$TOP/$BUILD/scratchpad-check-aof}
GEN="$TOP/$BUILD/tests/unit/test_aof"
DIR=$(mktemp -d /tmp/check_aof.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
OUT="$DIR/out.txt"

if [ ! -x "$CHECK_AOF" ] || [ ! -x "$GEN" ]; then
    echo "not ok - the check tool and the fixture writer are built ($CHECK_AOF, $GEN)"
    exit 1
fi
"$GEN" --write-fixtures "$DIR" || { echo "not ok - fixtures are written"; exit 1; }
. "$DIR/expect.sh"

# run FILE [--fix]: the tool's output in $OUT, its exit status in $rc.
run() {
    "$CHECK_AOF" "$@" >"$OUT" 2>&1
    rc=$?
}

# result SENTENCE CONDITION...: print ok/not ok, and the output when failing.
result() {
    sentence=$1; shift
    if "$@"; then
        echo "ok - $sentence"
    else
        echo "not ok - $sentence"
        sed 's/^/    /' "$OUT"
    fi
}

has() { grep -q -- "$1" "$OUT"; }
size() { wc -c <"$1" | tr -d ' '; }

# Flip every bit of the byte at offset $2 of file $1.
flip() {
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

run "$DIR/good.aof"
result "a valid log passes with its record count and exit status 0" \
    test $rc -eq 0 -a -n "$(has "$good_records records" && has ": OK" && echo y)"

run "$DIR/torn.aof"
result "a torn log is reported TORN at the last record's offset, with the bytes --fix would drop, exit 1" \
    test $rc -eq 1 -a -n "$(has "TORN at offset $torn_offset" && has "$torn_dropped bytes" && echo y)"

run "$DIR/torn.aof" --fix
result "--fix on a torn log says what is lost, truncates at the last whole record, exit 0" \
    test $rc -eq 0 -a "$(size "$DIR/torn.aof")" -eq "$torn_offset" -a \
    -n "$(has "$torn_dropped bytes will be lost" && echo y)"

run "$DIR/torn.aof"
result "the repaired log passes with every record before the tear" \
    test $rc -eq 0 -a -n "$(has "$((good_records - 1)) records" && echo y)"

run "$DIR/corrupt.aof"
result "a damaged byte in the middle is CORRUPT at that record's offset, exit 1" \
    test $rc -eq 1 -a -n "$(has "CORRUPT at offset $corrupt_offset" && echo y)"

before=$(size "$DIR/corrupt.aof")
cp "$DIR/corrupt.aof" "$DIR/corrupt2.aof"
run "$DIR/corrupt.aof" --fix
result "--fix alone does not guess for a damaged record: exit 1, file untouched, both options named with what each loses" \
    test $rc -eq 1 -a "$(size "$DIR/corrupt.aof")" -eq "$before" -a \
    -n "$(has "will not guess" && has "\-\-truncate" && has "\-\-skip-record only its" && echo y)"

run "$DIR/corrupt2.aof" --fix --skip-record
result "--fix --skip-record drops only the damaged record (its length plausible, the next record parses), exit 0" \
    test $rc -eq 0 -a -n "$(has "dropped the record at offset $corrupt_offset" && echo y)"

run "$DIR/corrupt2.aof"
result "the log without that record passes with every other record" \
    test $rc -eq 0 -a -n "$(has "$((good_records - 1)) records" && echo y)"

run "$DIR/corrupt.aof" --fix --truncate
result "--fix --truncate cuts a corrupt log at the bad record" \
    test $rc -eq 0 -a "$(size "$DIR/corrupt.aof")" -eq "$corrupt_offset"

run "$DIR/corrupt.aof"
result "the cut log passes with the records before the damage" \
    test $rc -eq 0 -a -n "$(has "$corrupt_records records" && echo y)"

before=$(size "$DIR/badheader.aof")
run "$DIR/badheader.aof" --fix
result "a damaged header cannot be repaired by truncation: exit 1, file untouched" \
    test $rc -eq 1 -a "$(size "$DIR/badheader.aof")" -eq "$before" -a \
    -n "$(has "bad magic" && has "cannot be repaired" && echo y)"

run "$DIR/badlz.aof"
result "a compressed value whose LZ4 data does not decode under a good CRC is a BAD VALUE, exit 1" \
    test $rc -eq 1 -a -n "$(has "BAD VALUE at offset" && has "does not decode" && echo y)"

run "$DIR/badlz.aof" --fix
result "--fix drops the record holding the bad value alone, exit 0" \
    test $rc -eq 0 -a -n "$(has "every other record kept" && echo y)"

run "$DIR/badlz.aof"
result "the log then passes with the records before and after it" \
    test $rc -eq 0 -a -n "$(has "2 records" && echo y)"

run "$DIR/set/scratchpad.manifest"
result "a manifest is checked file by file, in order" \
    test $rc -eq 0 -a -n "$(has "3 files, $set_records records" && has "$set_incr: OK" && echo y)"

flip "$DIR/set/$set_incr" $(( $(size "$DIR/set/$set_incr") / 2 ))
run "$DIR/set/scratchpad.manifest"
result "damage in a file that is not the last is reported with its file name, exit 1" \
    test $rc -eq 1 -a -n "$(has "$set_incr: CORRUPT at offset" && has "DAMAGED" && echo y)"

run "$DIR/set/scratchpad.manifest" --fix
result "--fix alone on a manifest with a damaged record refuses, exit 1, manifest untouched" \
    test $rc -eq 1 -a -n "$(grep "$set_last" "$DIR/set/scratchpad.manifest")" -a -n "$(has "will not guess" && echo y)"

run "$DIR/set/scratchpad.manifest" --fix --truncate
result "--fix --truncate on a manifest cuts the damaged file and drops the files after it from the manifest" \
    test $rc -eq 0 -a -n "$(has "$set_last: no longer named" && echo y)" -a \
    -z "$(grep "$set_last" "$DIR/set/scratchpad.manifest")" -a -f "$DIR/set/$set_last"

run "$DIR/set/scratchpad.manifest"
result "the repaired manifest passes" test $rc -eq 0

truncate -s -3 "$DIR/set/$set_incr"
run "$DIR/set/scratchpad.manifest"
result "a torn tail in the last file of a manifest is TORN, exit 1" \
    test $rc -eq 1 -a -n "$(has "$set_incr: TORN" && echo y)"

run "$DIR/set/scratchpad.manifest" --fix
result "--fix repairs it" test $rc -eq 0

printf 'scratchpad-manifest 1\nfile ../x seq 1 type base\n' >"$DIR/bad.manifest"
run "$DIR/bad.manifest"
result "an invalid manifest is refused with exit 1" \
    test $rc -eq 1 -a -n "$(has "invalid manifest" && echo y)"

run
r1=$rc
run "$DIR/missing.aof"
r2=$rc
run --bogus "$DIR/good.aof"
result "usage errors and unreadable files exit 2" test $r1 -eq 2 -a $r2 -eq 2 -a $rc -eq 2
