/* persist_load.h -- start-up replay of the log into the keyspace (persist.c's
 * internal half; the server calls persist_start, which calls this).
 *
 * Why a module: the replay (decode each record, apply its effects through the
 * internal effects _SETSTR / _SPENTRY / _SPAPPEND / _SPEXPIREAT or the command
 * table, report progress, and judge the end: torn tail, corruption, I/O error)
 * needs nothing of the log's run-time state, only the directory and the
 * manifest. */
#ifndef SP_PERSIST_LOAD_H
#define SP_PERSIST_LOAD_H

#include <stdint.h>

#include "aof_manifest.h"

/* What the last load did (INFO persistence). */
typedef struct persist_load_stats {
    long long records;   /* records replayed */
    long long bytes;     /* bytes of log read */
    long long ms;        /* duration */
    long long truncated; /* bytes of a torn tail cut off (aof-load-truncated yes) */
    long long bad_values;  /* values that did not decode, left out (aof-load-bad-values skip) */
    long long bad_effects; /* later effects on them, left out too */
} persist_load_stats;

/* Replay the files m names in dir into the server's databases, before the
 * listeners open: srv.loading is 1 and expiry is paused meanwhile. A torn last
 * record is cut off (the file truncated) when aof-load-truncated is yes.
 * A record whose CRC is good but which holds a compressed value that does not
 * decode (damaged before it was logged) is a bad value, told apart from a
 * damaged record: with aof-load-bad-values refuse the server does not start
 * (the key, entry, file and offset logged); with skip that key (a string) or
 * entry is left out, logged, and so is every later effect on it until an
 * effect gives it a whole new state (_SETSTR, _SPENTRY, SET, DEL, UNLINK).
 * Returns 0 with *st filled, or -1 after logging why the server must not start
 * (corruption with the repair command, a bad value, a torn tail with
 * aof-load-truncated no, an unreadable file). */
int persist_load(const char *dir, const aof_manifest *m, persist_load_stats *st);

/* Bytes of file name in dir, 0 if it cannot be stat'ed. */
uint64_t persist_file_size(const char *dir, const char *name);

#endif
