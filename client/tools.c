/* tools.c -- the table of LLM tools, the schemas made from it, its dispatcher.
 *
 * The one source of truth for the tools (see tools.h for the template rules):
 * a model sees the names and parameters agent models already know
 * (scratchpad_write {name, content}, scratchpad_read {name, offset, limit,
 * regex}, scratchpad_edit {name, old_string, new_string, replace_all}, ...),
 * with schemas as tight as the server's checks (the entry-name rule, integer
 * bounds), and gets back text it reads well: a read is bounded (30,000
 * characters by default) and says where it continues, a binary entry is
 * described (or given in base64 on request), never raw bytes; an error is the
 * server's message.
 *
 * The result formats are named in the table and implemented here and, with
 * the same names and texts, in client/python/scratchpad/_tools.py.
 */
#include "tools.h"

#include <stdlib.h>
#include <string.h>

/* An entry name: 1-255 bytes of A-Z a-z 0-9 _ - . : / with no empty, "." or
 * ".." segment (the length is maxLength). ECMA, POSIX ERE and Python alike. */
#define SEG "([A-Za-z0-9_:-][A-Za-z0-9_.:-]*|[.][A-Za-z0-9_:-][A-Za-z0-9_.:-]*|[.][.][A-Za-z0-9_.:-]+)"
#define NAME_PATTERN "^" SEG "(/" SEG ")*$"
/* A snapshot label: an entry name other than NOW in any case (SP.DIFF's word for the live entries).
 * Written without look-ahead, so that POSIX ERE (the C checker) reads it too: a name of two or more
 * segments, or one segment that is not three letters n o w. */
#define SEG1_C "[A-Za-z0-9_:-]"
#define SEG1_D "[A-Za-z0-9_.:-]"
#define SEG_NOT_NOW                                                                                     \
    "(" SEG1_C "|" SEG1_C SEG1_D "|" SEG1_C SEG1_D SEG1_D SEG1_D "+|[A-MO-Za-mo-z0-9_:-]" SEG1_D SEG1_D \
    "|[Nn][A-NP-Za-np-z0-9_.:-]" SEG1_D "|[Nn][Oo][A-VX-Za-vx-z0-9_.:-]|[.]" SEG1_C SEG1_D "*|[.][.]" SEG1_D "+)"
#define LABEL_PATTERN "^(" SEG "(/" SEG ")+|" SEG_NOT_NOW ")$"
#define LABEL_RULE                                                                                            \
    "labels follow the rule of entry names (1 to 255 characters of A-Z a-z 0-9 _ - . : / with no empty, '.' " \
    "or '..' path segment), and NOW is reserved"
#define FIELD_PATTERN "^[A-Za-z0-9_.:/-]{1,64}$" /* a metadata field name */
#define FIELD_RULE "field names are 1 to 64 characters of A-Z a-z 0-9 _ - . : /"
#define TOKEN_PATTERN "^[!-~]+$"  /* resources and holders: printable ASCII, no space */
#define MAXINT 9007199254740991LL /* 2^53 - 1: exact in every JSON reader */

#define ARG_NAME(d)                                                                                                 \
    {                                                                                                               \
        .name = "name", .type = SPT_STRING, .required = 1, .description = d, .pattern = NAME_PATTERN, .min_len = 1, \
        .max_len = 255                                                                                              \
    }
#define ARG_IFVERSION                                                                                              \
    {                                                                                                              \
        .name = "if_version", .type = SPT_INTEGER, .has_bounds = 1, .min = 0, .max = MAXINT,                       \
        .description = "Only change the entry if it is still at this version (0: only if it does not exist yet): " \
                       "use the version a read or write reported, to be sure nobody changed it meanwhile."         \
    }
#define ARG_FENCE                                                                                           \
    {.name = "fence_resource",                                                                              \
     .type = SPT_STRING,                                                                                    \
     .pattern = TOKEN_PATTERN,                                                                              \
     .min_len = 1,                                                                                          \
     .max_len = 255,                                                                                        \
     .description = "With fence_token: the resource of a lease you hold (scratchpad_lease); the change is " \
                    "refused if your lease has ended or passed to someone else."},                          \
    {                                                                                                       \
        .name = "fence_token", .type = SPT_INTEGER, .has_bounds = 1, .min = 1, .max = MAXINT,               \
        .description = "With fence_resource: the token scratchpad_lease gave you."                          \
    }
#define FENCE_T " [FENCE {fence_resource} {fence_token}]"
#define ARG_LABEL(d)                                                                                    \
    {                                                                                                   \
        .name = "label", .type = SPT_STRING, .required = 1, .description = d, .pattern = LABEL_PATTERN, \
        .rule = LABEL_RULE, .min_len = 1, .max_len = 255                                                \
    }
#define ARG_VERSION(d)                                                                                     \
    {                                                                                                      \
        .name = "version", .type = SPT_INTEGER, .has_bounds = 1, .min = 1, .max = MAXINT, .description = d \
    }
#define METADATA_BOUNDS \
    .type = SPT_OBJECT, .pattern = FIELD_PATTERN, .rule = FIELD_RULE, .min_len = 1, .max_len = 32, .max_bytes = 4096
#define END_ARGS     \
    {                \
        .name = NULL \
    }
#define END_VARIANTS \
    {                \
        .argv = NULL \
    }

static const char *const view_modes[] = {"head", "tail", "lines", NULL};

/* clang-format off */
static const spt_arg list_args[] = {
    {.name = "match", .type = SPT_STRING, .description =
        "Only entry names matching this glob (* ? [abc]), e.g. \"findings/*\". Omit to list everything."},
    {.name = "cursor", .type = SPT_STRING, .min_len = 1, .description =
        "The cursor a previous call returned, for the next page. Omit for the first page."},
    {.name = "where", METADATA_BOUNDS, .description =
        "Only entries whose metadata has these exact field values, e.g. {\"tool\": \"read_file\"} (every "
        "field given must match)."},
    {.name = "with_metadata", .type = SPT_BOOLEAN, .description =
        "Also show each entry's metadata fields (as JSON)."},
    END_ARGS};
static const spt_variant list_v[] = {
    {.argv = "SP.LIST {ns} WITHMETA [MATCH {match}] [WHERE {where}]* [CURSOR {cursor}] COUNT 200",
     .result = "list"},
    END_VARIANTS};

static const spt_arg write_args[] = {
    ARG_NAME("Entry name: 1-255 characters of A-Z a-z 0-9 _ - . : / (e.g. \"plan\", \"findings/api-limits\")."),
    {.name = "content", .type = SPT_STRING, .required = 1, .description = "The full text to store."},
    {.name = "metadata", METADATA_BOUNDS, .description =
        "Fields to keep beside the content, e.g. {\"source\": \"src/db.py\", \"step\": \"4\"}: at most 32 "
        "fields, names of A-Z a-z 0-9 _ - . : /, 4096 bytes in all. Replaces the entry's metadata; omitted, an "
        "overwrite keeps it. Shown by scratchpad_stat, filtered on by scratchpad_list's where."},
    ARG_IFVERSION, ARG_FENCE, END_ARGS};
static const spt_variant write_v[] = {
    {.argv = "SP.WRITE {ns} {name} {content} [META {metadata}]* [IFVERSION {if_version}]" FENCE_T,
     .result = "version"},
    END_VARIANTS};

static const spt_arg append_args[] = {
    ARG_NAME("Entry name, e.g. \"findings\" or \"log\"."),
    {.name = "content", .type = SPT_STRING, .required = 1, .description = "The text to add at the end."},
    ARG_IFVERSION, ARG_FENCE, END_ARGS};
static const spt_variant append_v[] = {
    {.argv = "SP.APPEND {ns} {name} {content} [IFVERSION {if_version}]" FENCE_T, .result = "length"},
    END_VARIANTS};

static const spt_arg read_args[] = {
    ARG_NAME("Entry name."),
    {.name = "offset", .type = SPT_INTEGER, .def = "0", .has_bounds = 1, .min = 0, .max = MAXINT, .description =
        "The character to start at (0-based). A truncated read tells you the offset to continue from."},
    {.name = "limit", .type = SPT_INTEGER, .def = "30000", .has_bounds = 1, .min = 1, .max = 100000, .description =
        "At most this many characters (default 30000)."},
    {.name = "regex", .type = SPT_STRING, .min_len = 1, .description =
        "Instead of a window: the lines matching this regular expression (Perl syntax), at most 100, each as "
        "\"<line number>:<text>\" (offset and limit are then not used)."},
    {.name = "base64", .type = SPT_BOOLEAN, .description =
        "For a binary entry: return the window's bytes in base64 instead of a description."},
    ARG_VERSION("Read this earlier version instead of the current one (scratchpad_history lists those kept; "
                "not with regex)."),
    END_ARGS};
static const spt_variant read_v[] = {
    {.when = "regex", .argv = "SP.GREP {ns} {name} {regex} MAX 100 WITHMETA", .result = "grep",
     .excludes = "version"},
    {.argv = "SP.READ {ns} {name} OFFSET {offset} LIMIT {limit} [VERSION {version}] WITHMETA", .result = "read"},
    END_VARIANTS};

static const spt_arg view_args[] = {
    ARG_NAME("Entry name."),
    {.name = "mode", .type = SPT_STRING, .required = 1, .enumv = view_modes, .description =
        "head: the first `count` characters; tail: the last `count` characters; lines: lines `start` to `end` "
        "(1-based, inclusive; negative numbers count from the end, -1 being the last line)."},
    {.name = "count", .type = SPT_INTEGER, .def = "2000", .has_bounds = 1, .min = 0, .max = 100000, .description =
        "head and tail: how many characters (default 2000)."},
    {.name = "start", .type = SPT_INTEGER, .def = "1", .has_bounds = 1, .min = -MAXINT, .max = MAXINT,
     .description = "lines: the first line (default 1)."},
    {.name = "end", .type = SPT_INTEGER, .def = "-1", .has_bounds = 1, .min = -MAXINT, .max = MAXINT,
     .description = "lines: the last line, inclusive (default -1: the last line)."},
    {.name = "base64", .type = SPT_BOOLEAN, .description =
        "For a binary entry: return the window's bytes in base64 instead of a description."},
    ARG_VERSION("View this earlier version instead of the current one (scratchpad_history lists those kept)."),
    END_ARGS};
static const spt_variant view_v[] = {
    {.when = "mode=head", .argv = "SP.READ {ns} {name} HEAD {count} [VERSION {version}] WITHMETA",
     .result = "read"},
    {.when = "mode=tail", .argv = "SP.READ {ns} {name} TAIL {count} [VERSION {version}] WITHMETA",
     .result = "read"},
    {.argv = "SP.READ {ns} {name} LINES {start} {end} [VERSION {version}] WITHMETA", .result = "lines"},
    END_VARIANTS};

static const spt_arg peek_args[] = {
    ARG_NAME("Entry name."),
    {.name = "head", .type = SPT_INTEGER, .has_bounds = 1, .min = 0, .max = 100000, .description =
        "Characters shown from the start (default 500)."},
    {.name = "tail", .type = SPT_INTEGER, .has_bounds = 1, .min = 0, .max = 100000, .description =
        "Characters shown from the end (default 500)."},
    END_ARGS};
static const spt_variant peek_v[] = {
    {.argv = "SP.PEEK {ns} {name} [HEAD {head}] [TAIL {tail}]", .result = "text"},
    END_VARIANTS};

static const spt_arg grep_args[] = {
    {.name = "name", .type = SPT_STRING, .description = "Entry name (or `entries`, to search several).",
     .pattern = NAME_PATTERN, .min_len = 1, .max_len = 255},
    {.name = "pattern", .type = SPT_STRING, .required = 1, .min_len = 1, .description =
        "A regular expression (Perl syntax: \\d, \\w, (?i) work), or a plain string with literal."},
    {.name = "context", .type = SPT_INTEGER, .has_bounds = 1, .min = 0, .max = 1000, .description =
        "Lines shown before and after each match (as grep -C)."},
    {.name = "max", .type = SPT_INTEGER, .def = "100", .has_bounds = 1, .min = 1, .max = 1000, .description =
        "At most this many matching lines (default 100)."},
    {.name = "ignore_case", .type = SPT_BOOLEAN, .description = "Match case-insensitively."},
    {.name = "literal", .type = SPT_BOOLEAN, .description = "The pattern is a plain string, not a regex."},
    {.name = "entries", .type = SPT_STRING, .min_len = 1, .max_len = 255, .description =
        "Instead of name: search every entry whose name matches this glob (* ? [...]), e.g. \"obs-*\" or \"*\"; "
        "lines then come as \"<entry>:<line number>:<text>\", and max counts them across the entries."},
    END_ARGS};
static const spt_variant grep_v[] = {
    {.when = "entries", .argv = "SP.GREP {ns} {pattern} ENTRIES {entries} MAX {max} [CONTEXT {context}] "
                                "[NOCASE {ignore_case}] [LITERAL {literal}] WITHMETA", .result = "grep_entries"},
    {.argv = "SP.GREP {ns} {name} {pattern} MAX {max} [CONTEXT {context}] [NOCASE {ignore_case}] "
             "[LITERAL {literal}] WITHMETA", .result = "grep"},
    END_VARIANTS};

static const spt_arg edit_args[] = {
    ARG_NAME("Entry name."),
    {.name = "old_string", .type = SPT_STRING, .min_len = 1, .description =
        "The exact text to replace; it must occur exactly once unless replace_all (include surrounding text "
        "to make it unique)."},
    {.name = "new_string", .type = SPT_STRING, .description = "The text to put in its place (with old_string)."},
    {.name = "replace_all", .type = SPT_BOOLEAN, .description = "Replace every occurrence of old_string."},
    {.name = "content", .type = SPT_STRING, .description =
        "Instead of old_string/new_string: the entry's whole new text (the entry must exist)."},
    ARG_IFVERSION, ARG_FENCE, END_ARGS};
static const spt_variant edit_v[] = {
    {.when = "content", .argv = "SP.WRITE {ns} {name} {content} XX [IFVERSION {if_version}]" FENCE_T,
     .result = "version"},
    {.argv = "SP.EDIT {ns} {name} {old_string} {new_string} [ALL {replace_all}] [IFVERSION {if_version}]" FENCE_T,
     .result = "edit"},
    END_VARIANTS};

static const spt_arg insert_args[] = {
    ARG_NAME("Entry name."),
    {.name = "line", .type = SPT_INTEGER, .required = 1, .has_bounds = 1, .min = -1, .max = MAXINT, .description =
        "Insert after this line: 0 at the top, -1 (or past the last line) at the end."},
    {.name = "content", .type = SPT_STRING, .required = 1, .description =
        "The text to insert; it becomes whole lines."},
    ARG_IFVERSION, ARG_FENCE, END_ARGS};
static const spt_variant insert_v[] = {
    {.argv = "SP.INSERT {ns} {name} {line} {content} [IFVERSION {if_version}]" FENCE_T, .result = "version"},
    END_VARIANTS};

static const spt_arg delete_args[] = {
    ARG_NAME("The entry to delete."), ARG_FENCE, END_ARGS};
static const spt_variant delete_v[] = {
    {.argv = "SP.DEL {ns} {name}" FENCE_T, .result = "deleted"},
    END_VARIANTS};

static const spt_arg stat_args[] = {ARG_NAME("Entry name."), END_ARGS};
static const spt_variant stat_v[] = {
    {.argv = "SP.STAT {ns} {name}", .result = "map"},
    END_VARIANTS};

static const spt_arg lease_args[] = {
    {.name = "resource", .type = SPT_STRING, .required = 1, .pattern = TOKEN_PATTERN, .min_len = 1, .max_len = 255,
     .description = "What you take a turn on; by convention the entry you are about to change, e.g. \"plan\"."},
    {.name = "holder", .type = SPT_STRING, .required = 1, .pattern = TOKEN_PATTERN, .min_len = 1, .max_len = 255,
     .description = "Your name as an agent, e.g. \"reviewer-2\" (printable, no spaces)."},
    {.name = "ttl_ms", .type = SPT_INTEGER, .required = 1, .has_bounds = 1, .min = 1, .max = 3153600000000LL,
     .description = "How long the lease lasts, in milliseconds, unless you renew it (take it again) or release it."},
    {.name = "wait_ms", .type = SPT_INTEGER, .has_bounds = 1, .min = 1, .max = 60000, .description =
        "If someone else holds it, wait up to this many milliseconds for it instead of failing at once."},
    END_ARGS};
static const spt_variant lease_v[] = {
    {.argv = "SP.LEASE {ns} {resource} {holder} {ttl_ms} [WAIT {wait_ms}]", .result = "lease"},
    END_VARIANTS};

static const spt_arg release_args[] = {
    {.name = "resource", .type = SPT_STRING, .required = 1, .pattern = TOKEN_PATTERN, .min_len = 1, .max_len = 255,
     .description = "The resource of your lease."},
    {.name = "holder", .type = SPT_STRING, .required = 1, .pattern = TOKEN_PATTERN, .min_len = 1, .max_len = 255,
     .description = "Your holder name, as given to scratchpad_lease."},
    {.name = "token", .type = SPT_INTEGER, .required = 1, .has_bounds = 1, .min = 1, .max = MAXINT,
     .description = "The token scratchpad_lease gave you."},
    END_ARGS};
static const spt_variant release_v[] = {
    {.argv = "SP.RELEASE {ns} {resource} {holder} {token}", .result = "released"},
    END_VARIANTS};

static const spt_arg changes_args[] = {
    {.name = "since", .type = SPT_INTEGER, .has_bounds = 1, .min = 0, .max = MAXINT, .description =
        "Only changes after this sequence number (the last one you saw); omit for all that are kept."},
    {.name = "count", .type = SPT_INTEGER, .def = "100", .has_bounds = 1, .min = 1, .max = 1000, .description =
        "At most this many changes (default 100)."},
    {.name = "wait_ms", .type = SPT_INTEGER, .has_bounds = 1, .min = 1, .max = 60000, .description =
        "If there is nothing new, wait up to this many milliseconds for the next change."},
    END_ARGS};
static const spt_variant changes_v[] = {
    {.argv = "SP.CHANGES {ns} [SINCE {since}] COUNT {count} [BLOCK {wait_ms}]", .result = "changes"},
    END_VARIANTS};

static const spt_arg snapshot_args[] = {
    ARG_LABEL("A name for this moment, e.g. \"before-refactor\" or \"cycle-3\" (the rule of entry names; not "
              "NOW)."),
    ARG_FENCE, END_ARGS};
static const spt_variant snapshot_v[] = {
    {.argv = "SP.SNAPSHOT {ns} {label}" FENCE_T, .result = "snapshot"},
    END_VARIANTS};

static const spt_arg snapshots_args[] = {END_ARGS};
static const spt_variant snapshots_v[] = {
    {.argv = "SP.SNAPSHOTS {ns}", .result = "snapshots"},
    END_VARIANTS};

static const spt_arg diff_args[] = {
    {.name = "from", .type = SPT_STRING, .required = 1, .pattern = NAME_PATTERN, .min_len = 1, .max_len = 255,
     .rule = "from and to are snapshot labels or NOW", .description =
        "The snapshot label to compare from (or NOW, the current state)."},
    {.name = "to", .type = SPT_STRING, .def = "NOW", .pattern = NAME_PATTERN, .min_len = 1, .max_len = 255,
     .rule = "from and to are snapshot labels or NOW", .description =
        "The snapshot label to compare to (default NOW, the current state)."},
    {.name = "name", .type = SPT_STRING, .pattern = NAME_PATTERN, .min_len = 1, .max_len = 255, .description =
        "One entry: show its line diff (unified, as diff -u) instead of the list of entries that differ."},
    END_ARGS};
static const spt_variant diff_v[] = {
    {.when = "name", .argv = "SP.DIFF {ns} {from} {to} {name}", .result = "diff_entry"},
    {.argv = "SP.DIFF {ns} {from} {to}", .result = "diff"},
    END_VARIANTS};

static const spt_arg restore_args[] = {
    ARG_LABEL("The snapshot to go back to."), ARG_FENCE, END_ARGS};
static const spt_variant restore_v[] = {
    {.argv = "SP.RESTORE {ns} {label}" FENCE_T, .result = "restored"},
    END_VARIANTS};

static const spt_arg drop_snapshot_args[] = {
    ARG_LABEL("The snapshot to drop."), ARG_FENCE, END_ARGS};
static const spt_variant drop_snapshot_v[] = {
    {.argv = "SP.DROPSNAPSHOT {ns} {label}" FENCE_T, .result = "dropped"},
    END_VARIANTS};

static const spt_arg history_args[] = {ARG_NAME("Entry name."), END_ARGS};
static const spt_variant history_v[] = {
    {.argv = "SP.HISTORY {ns} {name}", .result = "history"},
    END_VARIANTS};

static const spt_arg revert_args[] = {
    ARG_NAME("Entry name."),
    {.name = "version", .type = SPT_INTEGER, .required = 1, .has_bounds = 1, .min = 1, .max = MAXINT,
     .description = "The earlier version whose content comes back (one scratchpad_history lists)."},
    ARG_FENCE, END_ARGS};
static const spt_variant revert_v[] = {
    {.argv = "SP.REVERT {ns} {name} {version}" FENCE_T, .result = "reverted"},
    END_VARIANTS};

static const spt_arg metadata_args[] = {
    ARG_NAME("Entry name."),
    {.name = "set", METADATA_BOUNDS, .description =
        "Fields to set (others are kept), e.g. {\"status\": \"checked\"}: at most 32 fields in all, names of "
        "A-Z a-z 0-9 _ - . : /, 4096 bytes in all."},
    {.name = "remove", .type = SPT_ARRAY, .pattern = FIELD_PATTERN, .rule = FIELD_RULE, .min_len = 1,
     .max_len = 32, .description = "Instead of set: the names of fields to remove."},
    {.name = "clear", .type = SPT_BOOLEAN, .description = "Instead of set: remove every field."},
    ARG_FENCE, END_ARGS};
static const spt_variant metadata_v[] = {
    {.when = "clear", .argv = "SP.META {ns} {name} CLEAR" FENCE_T, .result = "meta", .excludes = "set remove"},
    {.when = "remove", .argv = "SP.META {ns} {name} DEL {remove}" FENCE_T, .result = "meta", .excludes = "set"},
    {.argv = "SP.META {ns} {name} SET {set}" FENCE_T, .result = "meta"},
    END_VARIANTS};

const spt_tool spt_tools[] = {
    {.name = "scratchpad_list", .args = list_args, .variants = list_v, .description =
        "List the entries of your scratchpad: your durable working memory, which outlives your context window. "
        "Call this FIRST at the start of every session or task, to see what you (or an earlier turn) already "
        "saved: plans, findings, constraints, decisions, stored tool outputs. Shows each entry's name, kind, "
        "length, version and last update (and its metadata with with_metadata), 200 a page; `where` filters "
        "on metadata fields."},
    {.name = "scratchpad_write", .args = write_args, .variants = write_v, .description =
        "Save something you will need later into your scratchpad, under a name. Reach for this whenever you "
        "would otherwise have to remember or redo work: your PLAN (before a multi-step task, one step per line "
        "with a [ ] checkbox), FINDINGS from expensive tool calls, CONSTRAINTS the user gave you, DECISIONS "
        "with their reasons. Use short path-like names: \"plan\", \"findings/db-schema\", \"decisions/auth\". "
        "Overwrites an entry of that name (scratchpad_edit changes part of one, scratchpad_append adds to one)."},
    {.name = "scratchpad_append", .args = append_args, .variants = append_v, .description =
        "Add text to the end of a scratchpad entry (created if missing) without rewriting it: a running log, "
        "one more finding, the result of the step you just finished. End it with a newline to keep one item "
        "per line."},
    {.name = "scratchpad_read", .args = read_args, .variants = read_v, .description =
        "Read a scratchpad entry: up to `limit` characters (default 30000) from `offset`; a longer entry is "
        "truncated and the result says how many characters remain and the offset to continue from. With "
        "`regex`, only the matching lines (at most 100) with their line numbers. For a large entry you have "
        "not seen, scratchpad_peek first; for the first or last part or a range of lines, scratchpad_view."},
    {.name = "scratchpad_view", .args = view_args, .variants = view_v, .description =
        "Read one window of a scratchpad entry: its head or tail (`count` characters), or a range of lines "
        "(`start` to `end`, like an editor's view_range). The result says the entry's size and whether more "
        "follows."},
    {.name = "scratchpad_peek", .args = peek_args, .variants = peek_v, .description =
        "A short preview of an entry: its first and last 500 characters with the number omitted between "
        "(a binary entry: its size and hash). Use it on a large entry before deciding what to read."},
    {.name = "scratchpad_grep", .args = grep_args, .variants = grep_v, .description =
        "Find the lines of an entry that match a pattern, with their line numbers (\"12:text\"; context lines "
        "\"11-text\"), and how many lines match in all; or, with `entries` instead of `name`, of every entry "
        "whose name matches a glob (\"obs-3:12:text\"). Then read around them with scratchpad_view "
        "mode=lines."},
    {.name = "scratchpad_edit", .args = edit_args, .variants = edit_v, .description =
        "Change part of an entry: replace old_string (which must occur exactly once, unless replace_all) with "
        "new_string, like a file edit tool; e.g. tick a step of your plan (\"[ ] step 2\" -> \"[x] step 2\"). "
        "Or give `content` to replace the entry's whole text. Returns the entry's new version."},
    {.name = "scratchpad_insert", .args = insert_args, .variants = insert_v, .description =
        "Insert lines into an entry after a given line (0: at the top, -1: at the end), e.g. a new step in the "
        "middle of a plan."},
    {.name = "scratchpad_delete", .args = delete_args, .variants = delete_v, .description =
        "Delete an entry you no longer need (a finished plan, an outdated finding)."},
    {.name = "scratchpad_stat", .args = stat_args, .variants = stat_v, .description =
        "An entry's properties without its content: kind, size in bytes, length in characters, lines, version, "
        "created/updated times, time to live, storage, sha256, and its metadata fields (as JSON)."},
    {.name = "scratchpad_lease", .args = lease_args, .variants = lease_v, .description =
        "When several agents share this scratchpad: take your turn on a resource (by convention the entry you "
        "will change) for ttl_ms milliseconds, or renew the lease you hold. Returns a token: pass it as "
        "fence_token (with fence_resource) to your writes, so that a write made after your turn ended is "
        "refused instead of overwriting the next agent's work. Release it when done."},
    {.name = "scratchpad_release", .args = release_args, .variants = release_v, .description =
        "Give up a lease you took with scratchpad_lease, so that the next agent waiting for it gets it."},
    {.name = "scratchpad_changes", .args = changes_args, .variants = changes_v, .description =
        "What changed in the scratchpad since you last looked (when several agents share it): each change's "
        "sequence number, time, operation, entry, version, size and the writer. Pass the last sequence number "
        "you saw as `since` next time."},
    {.name = "scratchpad_snapshot", .args = snapshot_args, .variants = snapshot_v, .description =
        "Freeze the whole scratchpad under a label before a risky or multi-step piece of work (a refactor, a "
        "cycle of edits), so that you can see afterwards what changed (scratchpad_diff) and go back if it went "
        "wrong (scratchpad_restore). Cheap: contents are shared, not copied."},
    {.name = "scratchpad_snapshots", .args = snapshots_args, .variants = snapshots_v, .description =
        "List the snapshots of the scratchpad: label, when it was taken, entries and bytes."},
    {.name = "scratchpad_diff", .args = diff_args, .variants = diff_v, .description =
        "What changed between a snapshot and now (or two snapshots): the entries added, removed and changed, "
        "with versions and sizes; with `name`, that entry's line diff (unified, as diff -u). Use it to review "
        "a cycle of work before you report it."},
    {.name = "scratchpad_restore", .args = restore_args, .variants = restore_v, .description =
        "Put the whole scratchpad back as it was in a snapshot: entries added since are deleted, changed ones "
        "come back (each at a new version). The snapshot stays. For one entry, scratchpad_revert is finer."},
    {.name = "scratchpad_drop_snapshot", .args = drop_snapshot_args, .variants = drop_snapshot_v,
     .description = "Drop a snapshot you no longer need (a scratchpad keeps at most 1000)."},
    {.name = "scratchpad_history", .args = history_args, .variants = history_v, .description =
        "The versions of an entry the server keeps (the current one and the last before it, by default): "
        "version, time, operation, size and writer. Read one with scratchpad_read version=N, bring one back "
        "with scratchpad_revert."},
    {.name = "scratchpad_revert", .args = revert_args, .variants = revert_v, .description =
        "Undo changes to one entry: write an earlier version's content (and metadata) back as a new version. "
        "scratchpad_history lists the versions kept."},
    {.name = "scratchpad_metadata", .args = metadata_args, .variants = metadata_v, .description =
        "Change an entry's metadata (fields beside its content: its source, the tool that produced it, the "
        "step, a status) without rewriting the content: `set` fields, `remove` some, or `clear` all. "
        "scratchpad_stat shows them; scratchpad_list where={...} finds entries by them."},
    {.name = NULL}};
/* clang-format on */

const spt_tool *spt_find(const char *name)
{
    for (const spt_tool *t = spt_tools; name && t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* ------------------------------------------------------------ definitions */

static json_t *arg_schema(const spt_arg *a)
{
    static const char *const types[] = {"string", "integer", "boolean", "object", "array"};
    json_t *s = json_object();
    json_object_set_new(s, "type", json_string(types[a->type]));
    json_object_set_new(s, "description", json_string(a->description));
    if (a->type == SPT_OBJECT) { /* fields named by the pattern, string values */
        json_object_set_new(s, "patternProperties", json_pack("{s:{s:s}}", a->pattern, "type", "string"));
        json_object_set_new(s, "additionalProperties", json_false());
        json_object_set_new(s, "minProperties", json_integer(a->min_len));
        json_object_set_new(s, "maxProperties", json_integer(a->max_len));
        return s;
    }
    if (a->type == SPT_ARRAY) {
        json_object_set_new(s, "items", json_pack("{s:s,s:s}", "type", "string", "pattern", a->pattern));
        json_object_set_new(s, "minItems", json_integer(a->min_len));
        json_object_set_new(s, "maxItems", json_integer(a->max_len));
        return s;
    }
    if (a->enumv) {
        json_t *e = json_array();
        for (const char *const *v = a->enumv; *v; v++)
            json_array_append_new(e, json_string(*v));
        json_object_set_new(s, "enum", e);
    }
    if (a->pattern)
        json_object_set_new(s, "pattern", json_string(a->pattern));
    if (a->type == SPT_STRING && a->min_len)
        json_object_set_new(s, "minLength", json_integer(a->min_len));
    if (a->type == SPT_STRING && a->max_len)
        json_object_set_new(s, "maxLength", json_integer(a->max_len));
    if (a->has_bounds) {
        json_object_set_new(s, "minimum", json_integer(a->min));
        json_object_set_new(s, "maximum", json_integer(a->max));
    }
    if (a->def)
        json_object_set_new(s, "default",
                            a->type == SPT_INTEGER ? json_integer(strtoll(a->def, NULL, 10)) : json_string(a->def));
    return s;
}

static json_t *input_schema(const spt_tool *t)
{
    json_t *s = json_object(), *props = json_object(), *req = json_array();
    json_object_set_new(s, "type", json_string("object"));
    for (const spt_arg *a = t->args; a->name; a++) {
        json_object_set_new(props, a->name, arg_schema(a));
        if (a->required)
            json_array_append_new(req, json_string(a->name));
    }
    json_object_set_new(s, "properties", props);
    if (json_array_size(req))
        json_object_set_new(s, "required", req);
    else
        json_decref(req);
    json_object_set_new(s, "additionalProperties", json_false());
    return s;
}

json_t *spt_definitions(const char *form)
{
    int anthropic = strcmp(form, "anthropic") == 0, openai = strcmp(form, "openai") == 0;
    int mcp = strcmp(form, "mcp") == 0, table = strcmp(form, "table") == 0;
    if (!anthropic && !openai && !mcp && !table)
        return NULL;
    json_t *out = json_array();
    for (const spt_tool *t = spt_tools; t->name; t++) {
        json_t *d = json_object();
        json_object_set_new(d, "name", json_string(t->name));
        json_object_set_new(d, "description", json_string(t->description));
        json_object_set_new(d, openai ? "parameters" : mcp ? "inputSchema" : "input_schema", input_schema(t));
        if (table) {
            json_t *vs = json_array(), *rules = json_object(), *max_bytes = json_object();
            for (const spt_variant *v = t->variants; v->argv; v++)
                json_array_append_new(vs, json_pack("{s:o,s:s,s:s,s:o}", "when",
                                                    v->when ? json_string(v->when) : json_null(), "argv", v->argv,
                                                    "result", v->result, "excludes",
                                                    v->excludes ? json_string(v->excludes) : json_null()));
            for (const spt_arg *a = t->args; a->name; a++) {
                if (a->rule)
                    json_object_set_new(rules, a->name, json_string(a->rule));
                if (a->max_bytes)
                    json_object_set_new(max_bytes, a->name, json_integer(a->max_bytes));
            }
            json_object_set_new(d, "x-scratchpad",
                                json_pack("{s:o,s:o,s:o}", "variants", vs, "rules", rules, "max_bytes", max_bytes));
        }
        if (openai)
            d = json_pack("{s:s,s:o}", "type", "function", "function", d);
        json_array_append_new(out, d);
    }
    return out;
}
