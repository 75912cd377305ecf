# tests/fuzz/fuzz.mk -- the libFuzzer targets and the ASan server they come with.
#
# Included by the top Makefile before its `all` target. A target is one file,
# tests/fuzz/fuzz_<name>.c (defining LLVMFuzzerTestOneInput), plus its seed
# corpus, tests/fuzz/corpus/<name>/: both are found by wildcard, so adding a
# target needs no change here nor in tests/run.sh. Every target links the three
# layer libraries (a static library gives only the objects a target uses).
#
# Everything is built by Debian's clang into $(FUZZ_BUILD) (default build-fuzz/,
# apart from build/ and build-asan/: libFuzzer needs clang's sanitizer runtime
# and coverage instrumentation, which gcc's build-asan objects do not have), with
# AddressSanitizer, UBSan (any report aborts) and libFuzzer's coverage:
#   $(FUZZ_BUILD)/tests/fuzz/fuzz_<name>   a target (libFuzzer's command line)
#   $(FUZZ_BUILD)/scratchpad-server        the server from the same objects, for
#                                          the command fuzzer (tests/fuzz/cmdfuzz.py)
#
#   make fuzz-build   build them (`make test` does, before tests/run.sh); installs
#                     clang and libclang-rt-dev if missing
#   make fuzz         run each target FUZZ_SECONDS (default 60) seconds, then the
#                     command fuzzer as long against the ASan server (tests/fuzz/long.sh;
#                     FUZZ_TARGETS="resp cmd" for some only, SEED for the command fuzzer)
# `make test` runs each target briefly (tests/fuzz/run_target.sh, FUZZ_BRIEF
# seconds, default 3) and the command fuzzer bounded (tests/fuzz/cmdfuzz.py,
# 20 s), from tests/run.sh. docs/fuzzing.md says what each target feeds and what
# was measured.

# The fragment comes before `all`: keep `all` the default goal.
ifeq ($(.DEFAULT_GOAL),)
.DEFAULT_GOAL := all
endif

FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_CFLAGS  ?= -O1 -g -fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 60
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:%.c=$(BUILD)/%)

.PHONY: fuzz fuzz-build fuzz-targets

# The build happens in a sub-make with BUILD, CC and CFLAGS of the fuzz build,
# so that the layer rules of the top Makefile compile the objects.
fuzz-build:
	@sh tests/install-deps.sh clang libclang-rt-dev
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CFLAGS="$(FUZZ_CFLAGS)" fuzz-targets

fuzz-targets: $(FUZZ_BIN) $(BUILD)/scratchpad-server

$(BUILD)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(SERVER_LIB) $(PERSIST_LIB) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SERVER_INC) -fsanitize=fuzzer -o $@ $< $(SERVER_LIB) $(PERSIST_LIB) $(CORE_LIB) $(LIBS)

fuzz: deps-build fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/long.sh

-include $(FUZZ_BIN:%=%.d)
