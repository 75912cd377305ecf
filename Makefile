# Scratchpad -- build, run and test.
#
#   make          build the server and the tools (build/)
#   make run      install missing build dependencies, build, run on scratchpad.conf
#   make test     install everything the tests need, build, run every test
#   make asan     build with AddressSanitizer + UBSan (build-asan/) and run the tests
#   make bench    side-by-side benchmark against redis-server
#   make fuzz     the libFuzzer targets and the command fuzzer, FUZZ_SECONDS each (tests/fuzz/fuzz.mk)
#   make format-check the C lines a change touched, checked against .clang-format
#   make format       the same lines, reformatted in place
#   make clean
#
# format-check and format look only at the lines that differ between the working
# tree and a base: FORMAT_BASE=<rev>, by default the merge base of HEAD with
# origin/main (or main when there is no origin). Lines outside the change are
# never checked, so the existing code's hand layouts do not fail them. Changes
# count whether committed, staged or unstaged (untracked files are not seen).
# Both run tests/format.sh on git clang-format (Debian package clang-format,
# installed if missing). Neither is part of `make test`.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BUILD   ?= build
PKGS    := libevent openssl liblz4 libxxhash libpcre2-8 nettle libisal lua5.1-cjson lua5.1-bitop lua5.1 liblzf
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
HIREDIS_CFLAGS := $(shell pkg-config --cflags hiredis 2>/dev/null)
HIREDIS_LIBS   := $(shell pkg-config --libs hiredis 2>/dev/null)
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(PKG_CFLAGS) -D_GNU_SOURCE -MMD -MP
LIBS    := $(PKG_LIBS) -lm -lpthread

# The server is built as layers, each a static library; a layer's objects are
# compiled with only the include paths it may use, and unit tests link only the
# layers they test, so the build itself refuses most arrows that must not exist
# (docs/architecture.md; `make check-deps` checks the rest from the #include lines).
#   core         server/core/**      -Iserver/core                 data structures and codecs
#   persistence  persistence/*.c     -Ipersistence -Iserver/core   the log as a library
#   server       every other server/ file, all paths               keyspace, types, cmd, net, aof
rwildcard   = $(foreach d,$(wildcard $(1:=/*)),$(call rwildcard,$d,$2) $(filter $(subst *,%,$2),$d))
CORE_SRC    := $(sort $(call rwildcard,server/core,*.c))
PERSIST_SRC := $(filter-out persistence/check_aof.c,$(wildcard persistence/*.c))
SERVER_SRC  := $(filter-out $(CORE_SRC) server/main.c,$(sort $(call rwildcard,server,*.c)))
CORE_OBJ    := $(CORE_SRC:%.c=$(BUILD)/%.o)
PERSIST_OBJ := $(PERSIST_SRC:%.c=$(BUILD)/%.o)
SERVER_OBJ  := $(SERVER_SRC:%.c=$(BUILD)/%.o)
CORE_LIB    := $(BUILD)/libspcore.a
PERSIST_LIB := $(BUILD)/libspaof.a
SERVER_LIB  := $(BUILD)/libspserver.a
CORE_INC    := -Iserver/core
PERSIST_INC := -Ipersistence -Iserver/core
SERVER_INC  := -Iserver -Iserver/core -Ipersistence
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:%.c=$(BUILD)/%)
ITEST_C    := $(wildcard tests/integration/*.c)
ITEST_BIN  := $(ITEST_C:%.c=$(BUILD)/%)
TOOLS      := $(if $(wildcard persistence/check_aof.c),$(BUILD)/scratchpad-check-aof)

# What each unit test links beyond the core library (default: the core alone).
UNIT_LINK_test_aof        := $(PERSIST_LIB)
UNIT_LINK_test_aof_stream := $(PERSIST_LIB)
UNIT_LINK_test_resp       := $(BUILD)/server/net/resp.o
UNIT_LINK_test_expire     := $(BUILD)/server/keyspace/db.o $(BUILD)/server/keyspace/lazyfree.o $(BUILD)/server/keyspace/type.o $(BUILD)/server/keyspace/vcomp.o $(BUILD)/server/types/string/value.o
UNIT_LINK_test_db         := $(BUILD)/server/keyspace/db.o $(BUILD)/server/keyspace/lazyfree.o $(BUILD)/server/keyspace/type.o $(BUILD)/server/keyspace/vcomp.o $(BUILD)/server/types/string/value.o
UNIT_LINK_test_config     := $(SERVER_LIB) $(PERSIST_LIB)
UNIT_LINK_test_reply      := $(SERVER_LIB) $(PERSIST_LIB)
UNIT_LINK_test_acl        := $(BUILD)/server/cmd/aclrules.o
UNIT_LINK_test_set        := $(BUILD)/server/keyspace/db.o $(BUILD)/server/keyspace/lazyfree.o $(BUILD)/server/keyspace/type.o $(BUILD)/server/keyspace/vcomp.o $(BUILD)/server/types/set/set.o

# Components add their targets here from their own fragments: EXTRA_ALL (built
# by `make`), and test programs built into $(BUILD)/tests/extra/ (run by
# tests/run.sh).
EXTRA_ALL :=
-include client/client.mk
-include bench/bench.mk
-include tests/fuzz/fuzz.mk

.PHONY: all run test asan bench clean deps deps-build unit-tests check-deps format-check format
all: $(BUILD)/scratchpad-server $(TOOLS) unit-tests $(ITEST_BIN) $(EXTRA_ALL)

unit-tests: $(UNIT_BIN)

$(CORE_LIB): $(CORE_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(PERSIST_LIB): $(PERSIST_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(SERVER_LIB): $(SERVER_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/scratchpad-server: $(BUILD)/server/main.o $(SERVER_LIB) $(PERSIST_LIB) $(CORE_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/scratchpad-check-aof: $(BUILD)/persistence/check_aof.o $(PERSIST_LIB) $(CORE_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/server/core/%.o: server/core/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CORE_INC) -c -o $@ $<

$(BUILD)/persistence/%.o: persistence/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PERSIST_INC) -c -o $@ $<

$(BUILD)/server/%.o: server/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SERVER_INC) -c -o $@ $<

.SECONDEXPANSION:
$(BUILD)/tests/unit/%: tests/unit/%.c $$(UNIT_LINK_$$*) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SERVER_INC) -Itests/unit -o $@ $< $(UNIT_LINK_$*) $(CORE_LIB) $(LIBS)

$(BUILD)/tests/integration/%: tests/integration/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(HIREDIS_CFLAGS) -o $@ $< $(HIREDIS_LIBS) $(LIBS)

# The layering rules (docs/architecture.md), from the #include lines.
check-deps:
	@/usr/bin/python3 tests/check_deps.py

# The house style (.clang-format) on the lines a change touched: format-check
# prints the diff clang-format would make and fails when there is one; format
# makes it. Not part of `make test`: formatting is not behaviour.
# FORMAT_BASE=<rev> (default: the merge base with origin/main, else main) is
# read by tests/format.sh from the environment.
format-check:
	@sh tests/install-deps.sh clang-format
	@FORMAT_BASE='$(FORMAT_BASE)' sh tests/format.sh check

format:
	@sh tests/install-deps.sh clang-format
	@FORMAT_BASE='$(FORMAT_BASE)' sh tests/format.sh apply

# Debian packages: what building needs, and what the tests need on top.
BUILD_DEBS := build-essential pkg-config libevent-dev libssl-dev liblz4-dev libxxhash-dev libpcre2-dev libhiredis-dev nettle-dev libisal-dev liblua5.1-0-dev lua-cjson-dev lua-bitop-dev libjansson-dev liblzf-dev
TEST_DEBS  := redis-tools redis-server openssl python3-redis gnuplot-nox python3-pip python3-venv python3-setuptools python3-pytest clang libclang-rt-dev
deps-build:
	@sh tests/install-deps.sh $(BUILD_DEBS)

deps: deps-build
	@sh tests/install-deps.sh $(TEST_DEBS)
	@sh tests/install-node-clients.sh

run: deps-build
	$(MAKE) $(BUILD)/scratchpad-server
	./$(BUILD)/scratchpad-server scratchpad.conf

test: deps
	@/usr/bin/python3 tests/check_deps.py
	$(MAKE) all
	$(MAKE) fuzz-build
	@BUILD=$(BUILD) sh tests/run.sh

asan: deps
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" all
	@BUILD=build-asan ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 sh tests/run.sh

bench: all
	sh bench/vs-redis.sh
	$(MAKE) bench-compare

clean:
	rm -rf build build-asan build-fuzz

-include $(CORE_OBJ:.o=.d) $(PERSIST_OBJ:.o=.d) $(SERVER_OBJ:.o=.d) $(BUILD)/server/main.d $(BUILD)/persistence/check_aof.d
