# lib.sh -- helpers shared by the comparison scripts in bench/ (sourced, POSIX sh).
#
# The caller defines say() (progress on standard error) and sets SERVER_CPU and
# BENCH_CPU before calling bench_pin.

# bench_pin CLIENTS: pin servers to SERVER_CPU and clients to BENCH_CPU when
# taskset works and the two CPUs differ. Sets PIN_SERVER and PIN_BENCH (command
# prefixes, empty when unpinned) and PINNING (a sentence for the report, naming
# the clients as CLIENTS).
bench_pin() {
    PIN_SERVER=""
    PIN_BENCH=""
    if command -v taskset >/dev/null 2>&1 && taskset -c "$SERVER_CPU" true 2>/dev/null &&
        taskset -c "$BENCH_CPU" true 2>/dev/null && [ "$SERVER_CPU" != "$BENCH_CPU" ]; then
        PIN_SERVER="taskset -c $SERVER_CPU"
        PIN_BENCH="taskset -c $BENCH_CPU"
        PINNING="servers on CPU $SERVER_CPU, $1 on CPU $BENCH_CPU"
    else
        PINNING="none (taskset or a second CPU missing): figures are noisier"
        say "warning: running unpinned"
    fi
}

# free_port: a TCP port of 127.0.0.1 nobody listens on right now (the kernel's
# choice), printed on standard output.
free_port() {
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# bench_server KIND: start scratchpad-server ($SERVER) or, for KIND redis,
# redis-server ($REDIS_SERVER), persistence off, on a free port, in a fresh
# folder below $work, with $PIN_SERVER (may be empty) in front; sets port and
# pid once it answers PING, exits if it does not within 5 s. bench_server_stop
# stops it by its PID.
bench_server() {
    port=$(free_port)
    if [ "$1" = redis ]; then
        $PIN_SERVER "$REDIS_SERVER" --port "$port" --save '' --appendonly no --dir "$work" >"$work/log-$port" 2>&1 &
    else
        $PIN_SERVER "$SERVER" --port "$port" --dir "$work/sp-$port" --appendonly no >"$work/log-$port" 2>&1 &
    fi
    pid=$!
    for _ in $(seq 100); do
        redis-cli -p "$port" ping >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "server $1 did not start" >&2
    exit 1
}

bench_server_stop() {
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pid=
}

# bench_median: the median of the numbers on standard input, one per line.
bench_median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
