#!/bin/sh
# format.sh -- the house style (.clang-format) on the C lines a change touched.
#
# Why: the tree is not formatted by clang-format as a whole (some hand layouts
# are kept: command tables, columns of trailing comments, help texts), and
# several people edit the same files, so a mass reformat is never wanted. What
# is wanted is that new and changed lines follow the style. git clang-format
# formats exactly those: the lines that differ between the working tree
# (committed, staged and unstaged changes alike; untracked files are not seen)
# and a base commit, each widened to the statement it belongs to.
#
#   sh tests/format.sh check   print the diff clang-format would make to those
#                              lines and the files it touches; exit 1 if any, 0 if none
#   sh tests/format.sh apply   make that diff in the working tree
#
# The base is $FORMAT_BASE if set, else the merge base of HEAD with origin/main,
# else with main. Exit 2 on a usage or tool error. Used by `make format-check`
# and `make format`, which install the Debian package clang-format first.
mode=$1
base=$FORMAT_BASE
if [ -z "$base" ]; then
    for b in origin/main main; do
        base=$(git merge-base HEAD "$b" 2>/dev/null) && break
    done
fi
if [ -z "$base" ] || ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    echo "format: no base to compare with (FORMAT_BASE='$FORMAT_BASE', no merge base with origin/main or main)" >&2
    exit 2
fi
command -v git-clang-format >/dev/null || { echo "format: git-clang-format not found (Debian package clang-format)" >&2; exit 2; }

case "$mode" in
check)
    # git clang-format 14 exits 0 whether or not it has a diff (later versions
    # exit 1 when they have one), so the verdict is read from what it prints.
    out=$(git clang-format --extensions c,h --diff "$base" --)
    rc=$?
    case "$out" in
    "no modified files to format" | "clang-format did not modify any files")
        echo "format-check: the C lines changed since $base follow .clang-format"
        exit 0 ;;
    "diff --git"*)
        printf '%s\n' "$out"
        echo "format-check: lines changed since $base differ from .clang-format (the diff above) in:" >&2
        printf '%s\n' "$out" | sed -n 's|^+++ b/|    |p' >&2
        echo "format-check: 'make format${FORMAT_BASE:+ FORMAT_BASE=$FORMAT_BASE}' rewrites them" >&2
        exit 1 ;;
    *)
        printf '%s\n' "$out"
        echo "format-check: git clang-format failed (exit $rc)" >&2
        exit 2 ;;
    esac ;;
apply)
    # -f: also rewrite files that have unstaged changes (the usual case).
    git clang-format --extensions c,h -f "$base" --
    rc=$?
    [ $rc -le 1 ] || exit $rc ;;
*)
    echo "usage: sh tests/format.sh check|apply" >&2
    exit 2 ;;
esac
