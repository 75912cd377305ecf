#!/bin/sh
# client_install.sh -- `make install` of libscratchpad, and a program built
# against the installed copy with pkg-config, the way a user of the library
# builds: install into a temporary DESTDIR with PREFIX=/usr, point pkg-config
# at it (PKG_CONFIG_PATH, PKG_CONFIG_SYSROOT_DIR), compile client/examples/
# agent_session.c against the shared and against the static library, and run
# both against a scratchpad-server this script starts.
#
# The library is built afresh in the temporary directory (BUILD=$tmp/build,
# plain CFLAGS) so that the installed copy is the ordinary one even when the
# suite runs under `make asan`; make's variables from a parent make are
# dropped for the same reason. The server runs on a free port of 127.0.0.1
# (found with Debian's python3) and is stopped by PID. Prints one
# "ok - ..." / "not ok - ..." line per case.
set -u

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=${SERVER:-$TOP/${BUILD:-build}/scratchpad-server}
PY=/usr/bin/python3
CC=${CC:-cc}
passed=0
failed=0
SPID=""
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sp-install-XXXXXX")

ok() {
    echo "ok - $1"
    passed=$((passed + 1))
}

notok() {
    echo "not ok - $1"
    failed=$((failed + 1))
}

# check DESCRIPTION COMMAND...: ok if the command succeeds (its output goes to
# $tmp/out, shown on failure).
check() {
    desc=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then
        ok "$desc"
    else
        notok "$desc"
        sed 's/^/    /' "$tmp/out" | tail -30 >&2
    fi
}

cleanup() {
    if [ -n "$SPID" ]; then
        kill -TERM "$SPID" 2>/dev/null
        i=0
        while kill -0 "$SPID" 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -KILL "$SPID" 2>/dev/null
        wait "$SPID" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
ROOT=$tmp/root
LIBDIR=$ROOT/usr/lib
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$ROOT"

mk() {
    make -C "$TOP" --no-print-directory BUILD="$tmp/build" CFLAGS="-O2 -g" "$@"
}

check "make install DESTDIR=<tmp> PREFIX=/usr builds and installs libscratchpad" \
    mk install DESTDIR="$ROOT" PREFIX=/usr

files_present() {
    for f in "$LIBDIR/libscratchpad.a" "$LIBDIR/libscratchpad.so" "$LIBDIR/libscratchpad.so.0" \
        "$LIBDIR/pkgconfig/scratchpad.pc" "$ROOT/usr/include/scratchpad.h"; do
        [ -e "$f" ] || { echo "missing $f"; return 1; }
    done
    [ -L "$LIBDIR/libscratchpad.so" ] || { echo "libscratchpad.so is not a symlink"; return 1; }
    readelf -d "$LIBDIR/libscratchpad.so" | grep -q 'SONAME.*libscratchpad.so.0' || { echo "no soname"; return 1; }
}
check "the static and shared libraries (with its soname links), the header and scratchpad.pc are installed" \
    files_present

pc_right() {
    grep -qx 'prefix=/usr' "$LIBDIR/pkgconfig/scratchpad.pc" || return 1
    [ "$(pkg-config --modversion scratchpad)" = "0.1.0" ] || return 1
    # pkgconf shows variables under the sysroot too; pkg-config does not.
    case "$(pkg-config --variable=libdir scratchpad)" in
    /usr/lib | "$ROOT/usr/lib") ;;
    *) return 1 ;;
    esac
    pkg-config --cflags scratchpad | grep -q -- "-I$ROOT/usr/include" || return 1
    pkg-config --libs scratchpad | grep -q -- "-lscratchpad"
}
check "pkg-config finds scratchpad.pc, generated for PREFIX=/usr, and gives the installed paths" pc_right

exports_only_api() {
    bad=$(nm -D --defined-only "$LIBDIR/libscratchpad.so" | awk '{print $3}' | grep -v '^sp_' | grep -v '^spc_' |
          grep -v '^_' || true)
    [ -z "$bad" ] || { echo "unexpected exports: $bad"; return 1; }
    ! nm -D --defined-only "$LIBDIR/libscratchpad.so" | grep -q 'spc_build_\|spc_convert'
}
check "the shared library exports the API of scratchpad.h and nothing internal" exports_only_api

check "the example builds against the installed shared library with pkg-config" \
    sh -c "$CC -std=gnu11 -Wall -Wextra -o '$tmp/agent_dyn' '$TOP/client/examples/agent_session.c' \
        \$(pkg-config --cflags --libs scratchpad)"

check "the example builds against the installed static library (pkg-config --static for its dependencies)" \
    sh -c "$CC -std=gnu11 -Wall -Wextra -o '$tmp/agent_static' '$TOP/client/examples/agent_session.c' \
        \$(pkg-config --cflags scratchpad) '$LIBDIR/libscratchpad.a' \
        \$(pkg-config --static --libs scratchpad | sed 's/-lscratchpad//')"

if command -v c++ >/dev/null 2>&1; then
    printf '#include <scratchpad.h>\nint main() { spc_ctx *c = spc_connect("127.0.0.1", 1); spc_free(c); return 0; }\n' \
        >"$tmp/cxx.cc"
    check "scratchpad.h compiles and links from C++" \
        sh -c "c++ -Wall -o '$tmp/cxx' '$tmp/cxx.cc' \$(pkg-config --cflags --libs scratchpad)"
fi

# ---- a server, and the examples against it ----
port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/srv"
(cd "$tmp/srv" && exec "$SERVER" --port "$port" --bind 127.0.0.1) >"$tmp/srv/server.log" 2>&1 &
SPID=$!
up=0
i=0
while [ $i -lt 100 ]; do
    if $PY -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)
s.sendall(b"PING\r\n")
sys.exit(0 if s.recv(16).startswith(b"+PONG") else 1)' "$port" 2>/dev/null; then
        up=1
        break
    fi
    sleep 0.1
    i=$((i + 1))
done
if [ $up -eq 1 ]; then
    ok "the test server starts"
else
    notok "the test server starts"
    sed 's/^/    /' "$tmp/srv/server.log" | tail -20 >&2
fi

run_session() {
    LD_LIBRARY_PATH="$LIBDIR" timeout 60 "$1" 127.0.0.1 "$port" "$2" || return 1
}
links_installed() {
    LD_LIBRARY_PATH="$LIBDIR" ldd "$tmp/agent_dyn" | grep "libscratchpad.so.0 => $LIBDIR/" || return 1
}
check "the dynamically linked example loads the installed libscratchpad.so.0" links_installed
check "the dynamically linked example runs an agent session (list, plan, offload, head/tail, grep, edit, batch)" \
    run_session "$tmp/agent_dyn" session-dyn
if grep -q 'session ok' "$tmp/out" && grep -q '^grep: 5 matching lines' "$tmp/out" &&
    grep -q '^list: 0 entries' "$tmp/out"; then
    ok "the session's output shows the listing, the grep count and success"
else
    notok "the session's output shows the listing, the grep count and success"
    sed 's/^/    /' "$tmp/out" >&2
fi
check "the statically linked example runs the same session" run_session "$tmp/agent_static" session-static
check "a second session finds the entries of the first in its listing" \
    sh -c "LD_LIBRARY_PATH='$LIBDIR' timeout 60 '$tmp/agent_dyn' 127.0.0.1 $port session-dyn | grep -q '^list: 2 entries'"

# ---- a PREFIX of one's own: the README's program as printed, run with no LD_LIBRARY_PATH ----
PFX=$tmp/prefix
check "make install PREFIX=<tmp>/prefix installs there" mk install PREFIX="$PFX"
sed -n '/^## In one screen/,/^## /p' "$TOP/client/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' |
    sed "s/6379/$port/" >"$tmp/one_screen.c"
check "client/README.md's 'In one screen' compiles as printed against the installed library" \
    sh -c "[ -s '$tmp/one_screen.c' ] && PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_PATH='$PFX/lib/pkgconfig' \
        $CC -std=gnu11 -Wall -Wextra -o '$tmp/one_screen' '$tmp/one_screen.c' \
        \$(PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_PATH='$PFX/lib/pkgconfig' pkg-config --cflags --libs scratchpad)"
check "it runs without LD_LIBRARY_PATH (the .pc's rpath) and finds the error in the offloaded log" \
    sh -c "env -u LD_LIBRARY_PATH '$tmp/one_screen' | grep -q '^stored obs-1; tail 2000 bytes; 3 grep lines; plan at version 2'"
check "the installed scratchpad-mcp runs from PREFIX/bin and prints its tools" \
    sh -c "'$PFX/bin/scratchpad-mcp' --print-tools openai | grep -q '\"scratchpad_read\"'"

# ---- the default PREFIX, and uninstall ----
default_prefix() {
    mk install DESTDIR="$tmp/root2" >/dev/null || return 1
    [ -e "$tmp/root2/usr/local/lib/libscratchpad.a" ] && [ -e "$tmp/root2/usr/local/include/scratchpad.h" ] &&
        grep -qx 'prefix=/usr/local' "$tmp/root2/usr/local/lib/pkgconfig/scratchpad.pc"
}
check "without PREFIX, make install uses /usr/local" default_prefix

uninstalled() {
    mk uninstall DESTDIR="$ROOT" PREFIX=/usr >/dev/null || return 1
    [ -z "$(find "$ROOT" -type f -o -type l)" ]
}
check "make uninstall removes every installed file" uninstalled

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
