/* tools.h -- the scratchpad as LLM tools: one table, its schemas, its dispatcher.
 *
 * One table (tools.c) says, for every tool a model is shown: its name, its
 * description, its arguments (type, bounds, default, the JSON Schema that
 * describes them), how a call becomes an SP command (argv templates, below) and
 * how the reply becomes the text the model reads (a named result format).
 * Everything else is generated from it: the MCP server's tools/list,
 * client/tools.json (Anthropic form), client/tools.openai.json (OpenAI form)
 * and client/python/scratchpad/tools_table.json, which the Python package
 * interprets with the same rules, so that no second mapping is written by hand.
 *
 * Argv templates. A variant of a tool is one template: tokens separated by
 * spaces. A literal token is sent as it is; "{arg}" is the argument's value
 * (an integer in decimal; "{ns}" the namespace the harness chose); "[" ... "]"
 * is a group sent only when every argument in it is given (a boolean argument
 * counts as given when true, and sends nothing itself). A group with some but
 * not all of its arguments given is a tool error. An object argument (a map of
 * string fields, such as metadata) sends its fields as "field value" pairs and
 * an array argument its items, in place; a group followed by "*" ("[META
 * {metadata}]*") holds one such argument and is sent once per field or item.
 * A tool has one variant or several, each with a condition ("arg": the
 * argument is given; "arg=value": it has that value); the first variant whose
 * condition holds is used, and the last has none. A variant may name arguments
 * that must not be given with it (`excludes`: "version" with a regex read),
 * which is then a tool error rather than an argument silently unused. Absent
 * arguments with a default take it before expansion.
 *
 * Errors: functions return 0 / -1 (or a pointer / NULL) as each says. A tool
 * call never aborts: everything that goes wrong is a tool error with a message.
 */
#ifndef SCRATCHPAD_TOOLS_H
#define SCRATCHPAD_TOOLS_H

#include <jansson.h>

#include "scratchpad.h"

/* SPT_OBJECT: a JSON object of string values (fields -> values, e.g.
 * metadata); SPT_ARRAY: a JSON array of strings. */
typedef enum spt_type { SPT_STRING, SPT_INTEGER, SPT_BOOLEAN, SPT_OBJECT, SPT_ARRAY } spt_type;

/* One argument of a tool. */
typedef struct spt_arg {
    const char *name;
    spt_type type;
    int required;
    const char *description;
    const char *def;     /* the default, as sent (decimal for an integer); NULL: none */
    const char *pattern; /* strings: a regular expression the value must match; objects: each field
                            name; arrays: each item; or NULL */
    const char *rule;    /* what pattern means, in words, for the error message; NULL: the entry-name
                            rule for "name", "printable characters without spaces" otherwise */
    long long min, max;  /* integers: bounds, inclusive (when has_bounds) */
    int has_bounds;
    long long min_len, max_len; /* strings: length bounds in characters; objects: fields; arrays:
                                   items (max 0: none) */
    long long max_bytes;        /* objects: field names and values together at most this many
                                   bytes (0: no bound) */
    const char *const *enumv;   /* strings: the allowed values, NULL-terminated, or NULL */
} spt_arg;

/* One way of running a tool: when `when` holds, send `argv`, format with `result`. */
typedef struct spt_variant {
    const char *when;   /* "arg" or "arg=value"; NULL: always */
    const char *argv;   /* the template */
    const char *result; /* the result format's name (see tools.c) */
    const char *excludes; /* arguments (space-separated) that must not be given with this variant, or NULL */
} spt_variant;

typedef struct spt_tool {
    const char *name;
    const char *description;
    const spt_arg *args;         /* terminated by a row with name NULL */
    const spt_variant *variants; /* terminated by a row with argv NULL */
} spt_tool;

/* The table, terminated by a row with name NULL. Static. */
extern const spt_tool spt_tools[];

/* The tool named `name`, or NULL. */
const spt_tool *spt_find(const char *name);

/* The tool definitions in one of the forms: "anthropic" ([{name, description,
 * input_schema}]), "openai" ([{type: "function", function: {name, description,
 * parameters}}]), "mcp" ([{name, description, inputSchema}]) or "table" (the
 * anthropic form plus "x-scratchpad": {variants: [{when, argv, result}]}, for
 * the Python package). Returns a new reference (json_decref it) or NULL for an
 * unknown form. */
json_t *spt_definitions(const char *form);

/* Run tool `name` with `args` (a JSON object; NULL: {}) in namespace `ns` on
 * connection c. Returns the text for the model, malloc'd (the caller frees it),
 * and sets *is_error to 1 when the call failed (the text then says why: the
 * argument that is wrong, or the server's error message) and 0 otherwise.
 * Returns NULL only when out of memory. A broken connection is a tool error
 * ("the scratchpad server is unavailable: ..."): spt_call does not reconnect,
 * the caller does (spt_ensure_connected). */
char *spt_call(spc_ctx *c, const char *ns, const char *name, json_t *args, int *is_error);

/* Reconnect c if its connection is broken (or was never made), then SELECT
 * db when db is not 0. Returns 0 when c is usable, -1 otherwise (the reason in
 * spc_errstr(c)). */
int spt_ensure_connected(spc_ctx *c, int db);

#endif
