# bench/bench.mk -- scratchpad-bench, the multi-agent load generator.
#
# Included by the top Makefile before its `all` target. Builds, under $(BUILD)
# and with $(CFLAGS) (so `make asan` gives a sanitized copy in build-asan/):
#   $(BUILD)/scratchpad-bench          the benchmark (hiredis async + libevent)
#   $(BUILD)/tests/extra/bench_units   unit tests of its histogram and text
#                                      generator (run by tests/run.sh)
#   $(BUILD)/blpop-latency             the BLPOP round-trip probe (bench/blpop-latency.sh)
# Objects go to $(BUILD)/bench/. The end-to-end test is
# tests/integration/bench_smoke.sh; `make bench-compare` runs bench/compare.sh,
# the comparison with redis-server (report in bench/results/); `make bench-aof`
# runs bench/aof-vs-redis.sh, the persistence benchmark against redis-server
# (report in bench/results/aof-<date>.md; about 10 minutes, ~3 GB of RAM and
# disk under $TMPDIR).

# The fragment comes before `all`: keep `all` the default goal.
ifeq ($(.DEFAULT_GOAL),)
.DEFAULT_GOAL := all
endif

BENCH_SRC    := bench/scratchpad_bench.c bench/agent.c bench/ops.c bench/hist.c bench/loggen.c
BENCH_OBJ    := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%.o)
BENCH_BIN    := $(BUILD)/scratchpad-bench
BENCH_UNITS  := $(BUILD)/tests/extra/bench_units
BENCH_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(HIREDIS_CFLAGS) $(PKG_CFLAGS) -D_GNU_SOURCE -MMD -MP
BENCH_LIBS   := $(HIREDIS_LIBS) $(LIBS)

BLPOP_LAT    := $(BUILD)/blpop-latency

EXTRA_ALL += $(BENCH_BIN) $(BENCH_UNITS) $(BLPOP_LAT)

.PHONY: bench-build bench-compare bench-aof
bench-build: $(BENCH_BIN)

# The side-by-side report against redis-server (a few minutes; see compare.sh).
bench-compare: $(BUILD)/scratchpad-server $(BENCH_BIN)
	BUILD=$(BUILD) sh bench/compare.sh

# The persistence benchmark (append-only log vs redis AOF; see aof-vs-redis.sh).
bench-aof: $(BUILD)/scratchpad-server
	BUILD=$(BUILD) sh bench/aof-vs-redis.sh

# More specific than the top Makefile's $(BUILD)/%.o rule, so it wins.
$(BUILD)/bench/%.o: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -Ibench -c -o $@ $<

$(BENCH_BIN): $(BENCH_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(BENCH_LIBS)

# The BLPOP round-trip probe (bench/blpop-latency.sh runs it against both servers).
$(BLPOP_LAT): $(BUILD)/bench/blpop_latency.o
	$(CC) $(CFLAGS) -o $@ $^ $(BENCH_LIBS)

$(BENCH_UNITS): $(BUILD)/bench/test_units.o $(BUILD)/bench/hist.o $(BUILD)/bench/loggen.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(BENCH_LIBS)

-include $(BENCH_OBJ:.o=.d) $(BUILD)/bench/test_units.d $(BUILD)/bench/blpop_latency.d
