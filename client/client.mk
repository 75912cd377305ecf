# client/client.mk -- libscratchpad: build, test programs and install.
#
# Included by the top Makefile before its `all` target. Builds, under $(BUILD)
# and with $(CFLAGS) (so `make asan` gives sanitized copies in build-asan/):
#   $(BUILD)/client/libscratchpad.a, $(BUILD)/client/libscratchpad.so
#   $(BUILD)/client/examples/*      the examples, linked with the static library
#   $(BUILD)/tests/extra/client_*   the library's tests (run by tests/run.sh)
# and installs with `make install` (PREFIX, default /usr/local; DESTDIR; LIBDIR,
# INCLUDEDIR): the two libraries, include/scratchpad.h and a scratchpad.pc for
# pkg-config generated with PREFIX.
#
# One set of position-independent objects serves both libraries. The shared
# library exports only the names of scratchpad.h (spc_internal.h hides the
# rest) and carries the soname libscratchpad.so.$(CLIENT_SOMAJOR).

# The fragment comes before `all`: keep `all` the default goal.
ifeq ($(.DEFAULT_GOAL),)
.DEFAULT_GOAL := all
endif

CLIENT_VERSION  := 0.1.0
CLIENT_SOMAJOR  := 0
CLIENT_SRC      := client/spc_cmd.c client/spc_reply.c client/spc_sync.c client/spc_async.c client/spc_tls.c
CLIENT_OBJ      := $(CLIENT_SRC:client/%.c=$(BUILD)/client/obj/%.o)
CLIENT_A        := $(BUILD)/client/libscratchpad.a
CLIENT_SO       := $(BUILD)/client/libscratchpad.so
CLIENT_EVENT_LIBS := $(shell pkg-config --libs libevent 2>/dev/null)
CLIENT_SSL_LIBS := $(shell pkg-config --libs openssl 2>/dev/null)
CLIENT_LIBS     := $(HIREDIS_LIBS) $(CLIENT_EVENT_LIBS) $(CLIENT_SSL_LIBS) -lpthread
CLIENT_CFLAGS   := -std=gnu11 $(WARN) $(CFLAGS) $(HIREDIS_CFLAGS) -D_GNU_SOURCE -MMD -MP
CLIENT_EXAMPLES := $(patsubst client/examples/%.c,$(BUILD)/client/examples/%,$(wildcard client/examples/*.c))
CLIENT_TESTS    := $(patsubst client/tests/test_%.c,$(BUILD)/tests/extra/client_%,$(wildcard client/tests/test_*.c))

EXTRA_ALL += $(CLIENT_A) $(CLIENT_SO) $(CLIENT_EXAMPLES) $(CLIENT_TESTS)

.PHONY: client install install-client uninstall-client
client: $(CLIENT_A) $(CLIENT_SO) $(CLIENT_EXAMPLES)

$(BUILD)/client/obj/%.o: client/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CLIENT_CFLAGS) -fPIC -Iclient -c -o $@ $<

$(CLIENT_A): $(CLIENT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(CLIENT_SO): $(CLIENT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libscratchpad.so.$(CLIENT_SOMAJOR) -o $@ $^ $(CLIENT_LIBS)

$(BUILD)/client/examples/%: client/examples/%.c $(CLIENT_A) client/scratchpad.h
	@mkdir -p $(dir $@)
	$(CC) $(CLIENT_CFLAGS) -Iclient -o $@ $< $(CLIENT_A) $(CLIENT_LIBS)

$(BUILD)/tests/extra/client_%: client/tests/test_%.c $(CLIENT_A) client/scratchpad.h tests/integration/itest.h
	@mkdir -p $(dir $@)
	$(CC) $(CLIENT_CFLAGS) -Iclient -Itests/integration -o $@ $< $(CLIENT_A) $(CLIENT_LIBS) -lpthread

# ---- install ----

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
INSTALL    ?= install

install: install-client

install-client: $(CLIENT_A) $(CLIENT_SO)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	$(INSTALL) -m 644 $(CLIENT_A) $(DESTDIR)$(LIBDIR)/libscratchpad.a
	$(INSTALL) -m 755 $(CLIENT_SO) $(DESTDIR)$(LIBDIR)/libscratchpad.so.$(CLIENT_VERSION)
	ln -sf libscratchpad.so.$(CLIENT_VERSION) $(DESTDIR)$(LIBDIR)/libscratchpad.so.$(CLIENT_SOMAJOR)
	ln -sf libscratchpad.so.$(CLIENT_SOMAJOR) $(DESTDIR)$(LIBDIR)/libscratchpad.so
	$(INSTALL) -m 644 client/scratchpad.h $(DESTDIR)$(INCLUDEDIR)/scratchpad.h
	printf '%s\n' \
	    'prefix=$(PREFIX)' \
	    'libdir=$(LIBDIR)' \
	    'includedir=$(INCLUDEDIR)' \
	    '' \
	    'Name: scratchpad' \
	    'Description: C client for the Scratchpad server (SP.* commands), sync, batched and async' \
	    'Version: $(CLIENT_VERSION)' \
	    'Requires.private: hiredis libevent openssl' \
	    'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lscratchpad' \
	    'Cflags: -I$${includedir}' \
	    > $(DESTDIR)$(LIBDIR)/pkgconfig/scratchpad.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/scratchpad.pc

uninstall-client:
	rm -f $(DESTDIR)$(LIBDIR)/libscratchpad.a $(DESTDIR)$(LIBDIR)/libscratchpad.so \
	    $(DESTDIR)$(LIBDIR)/libscratchpad.so.$(CLIENT_SOMAJOR) \
	    $(DESTDIR)$(LIBDIR)/libscratchpad.so.$(CLIENT_VERSION) \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/scratchpad.pc $(DESTDIR)$(INCLUDEDIR)/scratchpad.h

-include $(CLIENT_OBJ:.o=.d)

# ---- the LLM tools and scratchpad-mcp ----
# client/tools.c is the one table of the tools; scratchpad-mcp serves them over
# MCP and, with --print-tools, generates the files checked in next to it
# (`make tools-json` rewrites them; tests/integration/mcp_stdio.py checks that
# they are current). `make install` puts scratchpad-mcp in $(BINDIR).
MCP_BIN      := $(BUILD)/scratchpad-mcp
MCP_SRC      := client/mcp/scratchpad_mcp.c client/mcp/mcp_proto.c client/mcp/mcp_http.c client/mcp/mcp_run.c \
                client/tools.c \
                client/tools_call.c
MCP_LIBS     := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
EXTRA_ALL    += $(MCP_BIN)

$(MCP_BIN): $(MCP_SRC) client/tools.h client/mcp/mcp_proto.h client/mcp/mcp_http.h client/mcp/mcp_run.h $(CLIENT_A) client/scratchpad.h
	@mkdir -p $(dir $@)
	$(CC) $(CLIENT_CFLAGS) -Iclient -Iclient/mcp -o $@ $(MCP_SRC) $(CLIENT_A) $(CLIENT_LIBS) $(MCP_LIBS) -lpthread

BINDIR ?= $(PREFIX)/bin
install: install-mcp
.PHONY: install-mcp uninstall uninstall-mcp
install-mcp: $(MCP_BIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(MCP_BIN) $(DESTDIR)$(BINDIR)/scratchpad-mcp

uninstall: uninstall-client uninstall-mcp
uninstall-mcp:
	rm -f $(DESTDIR)$(BINDIR)/scratchpad-mcp

.PHONY: tools-json
tools-json: $(MCP_BIN)
	$(MCP_BIN) --print-tools anthropic > client/tools.json
	$(MCP_BIN) --print-tools openai > client/tools.openai.json
	$(MCP_BIN) --print-tools table > client/python/scratchpad/tools_table.json
