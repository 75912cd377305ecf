# Scratchpad -- build, run and test.
#
#   make          build the server and the tools (build/)
#   make run      install missing build dependencies, build, run on scratchpad.conf
#   make test     install everything the tests need, build, run every test
#   make asan     build with AddressSanitizer + UBSan (build-asan/) and run the tests
#   make bench    side-by-side benchmark against redis-server
#   make clean

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BUILD   ?= build
PKGS    := libevent liblz4 libxxhash libpcre2-8 nettle libisal
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
HIREDIS_CFLAGS := $(shell pkg-config --cflags hiredis 2>/dev/null)
HIREDIS_LIBS   := $(shell pkg-config --libs hiredis 2>/dev/null)
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(PKG_CFLAGS) -D_GNU_SOURCE -MMD -MP
LIBS    := $(PKG_LIBS) -lm -lpthread

SERVER_SRC := $(wildcard server/*.c)
PERSIST_SRC := $(filter-out persistence/check_aof.c,$(wildcard persistence/*.c))
CORE_SRC   := $(filter-out server/main.c,$(SERVER_SRC)) $(PERSIST_SRC)
CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:%.c=$(BUILD)/%)
ITEST_C    := $(wildcard tests/integration/*.c)
ITEST_BIN  := $(ITEST_C:%.c=$(BUILD)/%)
TOOLS      := $(if $(wildcard persistence/check_aof.c),$(BUILD)/scratchpad-check-aof)

# Components add their targets here from their own fragments: EXTRA_ALL (built
# by `make`), and test programs built into $(BUILD)/tests/extra/ (run by
# tests/run.sh).
EXTRA_ALL :=
-include client/client.mk
-include bench/bench.mk

.PHONY: all run test asan bench clean deps deps-build unit-tests
all: $(BUILD)/scratchpad-server $(TOOLS) unit-tests $(ITEST_BIN) $(EXTRA_ALL)

unit-tests: $(UNIT_BIN)

$(BUILD)/scratchpad-server: $(CORE_OBJ) $(BUILD)/server/main.o
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/scratchpad-check-aof: $(BUILD)/persistence/check_aof.o $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iserver -Ipersistence -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iserver -Ipersistence -Itests/unit -o $@ $< $(CORE_OBJ) $(LIBS)

$(BUILD)/tests/integration/%: tests/integration/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(HIREDIS_CFLAGS) -o $@ $< $(HIREDIS_LIBS) $(LIBS)

# Debian packages: what building needs, and what the tests need on top.
BUILD_DEBS := build-essential pkg-config libevent-dev liblz4-dev libxxhash-dev libpcre2-dev libhiredis-dev nettle-dev libisal-dev
TEST_DEBS  := redis-tools redis-server python3-redis gnuplot-nox
deps-build:
	@sh tests/install-deps.sh $(BUILD_DEBS)

deps: deps-build
	@sh tests/install-deps.sh $(TEST_DEBS)
	@sh tests/install-node-clients.sh

run: deps-build
	$(MAKE) $(BUILD)/scratchpad-server
	./$(BUILD)/scratchpad-server scratchpad.conf

test: deps
	$(MAKE) all
	@BUILD=$(BUILD) sh tests/run.sh

asan: deps
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" all
	@BUILD=build-asan ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 sh tests/run.sh

bench: all
	sh bench/vs-redis.sh
	$(MAKE) bench-compare

clean:
	rm -rf build build-asan

-include $(CORE_OBJ:.o=.d) $(BUILD)/server/main.d
