/* config.h -- configuration directives: one table row each (name, type, bounds,
 * default, field), read from scratchpad.conf and the command line at start-up and
 * through CONFIG GET / CONFIG SET at run time.
 *
 * Errors: cfg_load_* return 0, or -1 after printing a message that names the
 * file, the line and the directive. */
#ifndef SP_CONFIG_H
#define SP_CONFIG_H

#include <stddef.h>

typedef enum { CFG_BOOL, CFG_INT, CFG_OCTAL, CFG_MEMORY, CFG_ENUM, CFG_STRING, CFG_SPECIAL } cfg_type;

#define CFG_IMMUTABLE (1 << 0) /* start-up only */
#define CFG_SENSITIVE (1 << 1) /* not echoed in logs */
#define CFG_PROTECTED (1 << 2) /* CONFIG SET only as enable-protected-configs allows */

/* Values of enable-debug-command and enable-protected-configs, as Redis 7's. */
enum { CFG_PROTECTED_NO, CFG_PROTECTED_YES, CFG_PROTECTED_LOCAL };
#define CPULIST_WORDS 16       /* CPU lists name CPUs 0 - 1023 */

typedef struct cfg_def {
    const char *name;
    cfg_type type;
    int flags;
    long long min, max;      /* bounds for INT and MEMORY */
    const char *deflt;       /* default as written in scratchpad.conf */
    void *field;             /* int*, long long*, char** (by type) */
    const char *const *enums;/* names for ENUM, index = value; NULL-terminated */
    /* For SPECIAL: parse argv into the field (0 / -1 with *err), and format it. */
    int (*set)(int argc, char **argv, const char **err);
    void (*get)(char *buf, size_t cap);
    /* Called after a successful run-time change (may be NULL); 0 / -1 with *err. */
    int (*apply)(const char **err);
} cfg_def;

/* The table, ended by a row with a NULL name. */
extern const cfg_def cfg_table[];
/* Older names Redis 7 still accepts for some directives (the *-ziplist-* ones
 * of the listpack thresholds): the file, the command line and CONFIG SET take
 * either name, and CONFIG GET answers under the name or pattern asked. Ended
 * by a row with a NULL alias. */
typedef struct cfg_alias {
    const char *alias, *name;
} cfg_alias;
extern const cfg_alias cfg_aliases[];

/* Set every directive to its default. */
void cfg_defaults(void);
/* Load directives from the file at path. */
int cfg_load_file(const char *path);
/* Load directives from command-line "--name value ..." arguments. */
int cfg_load_args(int argc, char **argv);

/* Set directive name to the words argv[0..argc) (from a file or CONFIG SET).
 * Returns 0, or -1 with *err set to a static or thread-local message. */
int cfg_set(const cfg_def *d, int argc, char **argv, const char **err);
/* Format the current value of d into buf. */
void cfg_format(const cfg_def *d, char *buf, size_t cap);
/* The row named name or one of its aliases (case-insensitive), or NULL. */
const cfg_def *cfg_find(const char *name, size_t len);

/* Split a line into words as redis.conf does (quotes and escapes). Returns the
 * number of words (at most max), or -1 on unbalanced quotes. The words are
 * written into out_buf (cap bytes) and pointed to by words[]. */
int cfg_split(const char *line, char **words, int max, char *out_buf, size_t cap);

#endif
