/* aclrules.h -- ACL users and their rules, as Redis 7.0 writes them, with no
 * server around them.
 *
 * Why a module of its own: the rule language (">pass", "~pattern", "%R~",
 * "&channel", "+@category", "-cmd|sub", "(selectors)", ...) is the part of
 * ACL that takes untrusted text, so it is kept pure: it knows commands only
 * through a catalog the caller installs (aclr_set_catalog: names,
 * subcommands, categories), includes nothing of the server but core/, and is
 * unit-tested (tests/unit/test_acl.c) and fuzzed (tests/fuzz/fuzz_acl.c)
 * alone. cmd/acl.c builds the catalog from the registry and does everything
 * that needs a client: dispatch checks, AUTH, ACL LOG, the ACL commands.
 *
 * Model (Redis 7.0's): a user has flags (on/off, nopass, sanitize-payload),
 * a list of SHA-256 password digests and one or more selectors, the first
 * being the root; a command is allowed when any one selector allows the
 * command, each of its keys (with the access the command needs: %R, %W or
 * both) and each of its channels. A selector holds a bitmap of allowed
 * commands indexed by catalog id, the first arguments allowed for otherwise
 * blocked commands (+select|0), key patterns with R/W flags and channel
 * patterns. Descriptions (ACL LIST, GETUSER) are rebuilt from the bitmap with
 * Redis's algorithm: +@all or -@all, then the categories that fit best, then
 * single commands; replaying a description gives back the same bitmap.
 *
 * Errors: functions return 0 / -1; a rule error gives Redis's message text
 * (static storage). Memory: every user owns its strings; aclr_user_free
 * releases all of it. */
#ifndef SP_ACLRULES_H
#define SP_ACLRULES_H

#include <stddef.h>
#include <stdint.h>

#define ACLR_MAX_CMDS 1024 /* catalog ids: commands and subcommands */
#define ACLR_WORDS (ACLR_MAX_CMDS / 64)
#define ACLR_NCATS 22 /* Redis's 21 categories, then "scratchpad" */

/* One command or subcommand of the catalog. Subcommands follow their
 * container: ids first_sub .. first_sub + nsubs - 1. */
typedef struct aclr_cmd {
    const char *name; /* lower case, "get" or "config|get" */
    int parent;       /* id of the container, -1 for a command */
    int first_sub;    /* id of the first subcommand (nsubs > 0) */
    int nsubs;
    uint32_t cats; /* bit i: category aclr_cat_names[i] */
} aclr_cmd;

/* Install the catalog (the array stays the caller's and must outlive every
 * user). At most ACLR_MAX_CMDS entries. */
void aclr_set_catalog(const aclr_cmd *cmds, int n);
/* The catalog id of "name" or "name|sub" (any case), or -1. */
int aclr_lookup(const char *name, size_t len);
extern const char *const aclr_cat_names[ACLR_NCATS];
/* The index of category name (any case, without '@'), or -1. */
int aclr_cat_index(const char *name, size_t len);

/* Key pattern permission flags (%R, %W). */
#define ACLR_READ 1
#define ACLR_WRITE 2
#define ACLR_RW 3

/* Selector flags. */
#define ACLR_ALLKEYS 1
#define ACLR_ALLCHANNELS 2
#define ACLR_ALLCOMMANDS 4 /* every command, no bitmap test */
#define ACLR_FUTURE 8      /* +@all was the base: commands added later are allowed */

/* User flags, in Redis's order of description. */
#define ACLR_ON 1
#define ACLR_OFF 2
#define ACLR_NOPASS 4
#define ACLR_SKIP_SANITIZE 8
#define ACLR_SANITIZE 16

typedef struct aclr_pat {
    char *p;
    size_t len;
    int flags; /* ACLR_READ/WRITE for keys; 0 for channels */
} aclr_pat;

typedef struct aclr_sel {
    int flags;
    uint64_t bits[ACLR_WORDS];
    aclr_pat *keys;
    int nkeys;
    aclr_pat *chans;
    int nchans;
    char ***firstargs; /* NULL, or per id a NULL-ended list of allowed first arguments */
} aclr_sel;

typedef struct aclr_user {
    char *name;
    size_t nlen;
    int flags;
    uint8_t (*pw)[32]; /* SHA-256 digests */
    int npw;
    aclr_sel *sels; /* sels[0] is the root selector */
    int nsels;
    int allow_all; /* kept by aclr_apply: one selector that allows every
                          command, key and channel (dispatch's fast path) */
} aclr_user;

/* A new user as ACL SETUSER creates it: off, no passwords, no keys, no
 * channels (resetchannels), no commands. Free with aclr_user_free. */
aclr_user *aclr_user_new(const char *name, size_t len);
void aclr_user_free(aclr_user *u);
/* A deep copy of u. */
aclr_user *aclr_user_dup(const aclr_user *u);

/* Apply one rule (op[0..len)) to u. 0, or -1 with *err set to Redis's
 * message ("Syntax error", ...); u may be partly changed on error (callers
 * apply to a copy). */
int aclr_apply(aclr_user *u, const char *op, size_t len, const char **err);
/* Apply rules as ACL SETUSER and a "user" line take them: arguments that
 * open a selector with '(' are joined with spaces up to the one closing it,
 * then each rule is applied in order. 0, or -1 with a message in
 * errbuf (Redis's text without the "ERR "). */
int aclr_apply_args(aclr_user *u, int argc, const char *const *argv, const size_t *lens, char *errbuf, size_t errcap);

/* Descriptions. Each returns an xmalloc'd string the caller frees. */
/* "on nopass #<hex> ~* &* +@all (selector...)": ACL LIST's line without
 * "user <name> ". */
char *aclr_describe_user(const aclr_user *u);
/* The user flags with their names, in the order Redis shows them (ACL LIST,
 * ACL GETUSER's flags); ended by {0, NULL}. */
typedef struct aclr_flag_name {
    int flag;
    const char *name;
} aclr_flag_name;
extern const aclr_flag_name aclr_flag_names[];
/* A selector's command rules: "+@all -get", "-@all +@hash +config|get". */
char *aclr_describe_cmds(const aclr_sel *s);
/* A selector's key patterns ("~* " forms joined by spaces, "" if none) and
 * channel patterns ("&*", "&a &b", ""), as ACL GETUSER gives them. */
char *aclr_describe_keys(const aclr_sel *s);
char *aclr_describe_chans(const aclr_sel *s);

/* 1 if pass[0..len) is one of u's passwords (or u is nopass), compared in
 * constant time: the SHA-256 of the candidate against each digest. */
int aclr_check_password(const aclr_user *u, const char *pass, size_t len);
/* digest -> 64 lower-case hex characters (out[64] gets a NUL). */
void aclr_hex(const uint8_t digest[32], char out[65]);

/* Checks of one selector. */
/* 1 if the selector allows catalog command id; arg[0..len) is the command's
 * first argument (argv[1], or argv[2] for a subcommand), NULL if none, for
 * the first-argument rules. */
int aclr_sel_cmd(const aclr_sel *s, int id, const char *arg, size_t len);
/* 1 if the key is allowed with access need (ACLR_READ|ACLR_WRITE bits). */
int aclr_sel_key(const aclr_sel *s, const char *key, size_t len, int need);
/* 1 if the channel is allowed; a pattern (PSUBSCRIBE) must equal one of the
 * selector's patterns, a channel must match one. */
int aclr_sel_chan(const aclr_sel *s, const char *ch, size_t len, int is_pattern);

#endif
