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
