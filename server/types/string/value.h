/* value.h -- the string value interface: one API over every encoding.
 *
 * Commands never touch an entry's bytes directly: they ask for its length, read a
 * range, replace, append or overwrite, and this layer picks the encoding (inline
 * in the entry, a heap buffer, or chunked LZ4 above compress-threshold) and moves
 * between encodings as a value grows. A window read of a compressed value
 * decompresses only the chunks it touches.
 *
 * Errors: functions returning int give 0 on success, -1 if a compressed chunk is
 * corrupt (the caller answers an error; nothing is written). */
#ifndef SP_VALUE_H
#define SP_VALUE_H

#include <stddef.h>

#include "keyspace/db.h"

struct lzval;

/* Bytes of value. */
size_t sv_len(const dbent *e);
/* Contiguous bytes of the value if it is not compressed, else NULL. */
const char *sv_ptr(const dbent *e);
/* The value's bytes, writable in place (a change that keeps the length: the
 * caller then reports the key changed as for any write), if it is stored
 * uncompressed out of line (RAW), else NULL. Valid until the next change. */
char *sv_ptr_mut(dbent *e);
/* Copy bytes [off, off+n) (off + n <= sv_len) into dst. */
int sv_read(const dbent *e, size_t off, size_t n, char *dst);

/* Set key to a string value (creating it or replacing any value of any type;
 * the TTL is removed unless flags has SV_KEEPTTL). With SV_TTL (the caller
 * sets a TTL right after, with db_set_expire), a new key is created in the
 * entry layout that holds one, so that it need not move for it. Returns the
 * entry. */
#define SV_KEEPTTL 1
#define SV_TTL 2
dbent *sv_set(db *d, const char *key, size_t klen, const char *p, size_t n, int flags);
/* Set key to the compressed value v, which the entry takes over (the log
 * loader: values are logged in their compressed chunks). The TTL is removed.
 * Returns the entry. */
dbent *sv_set_lzval(db *d, const char *key, size_t klen, struct lzval *v);
/* Replace the value of an existing string entry; returns its (maybe new) address. */
dbent *sv_replace(db *d, dbent *e, const char *p, size_t n);
/* Append; returns the (maybe new) address via *e. */
int sv_append(db *d, dbent **e, const char *p, size_t n);
/* Overwrite from off (zero-padding any gap); returns the (maybe new) address via *e. */
int sv_setrange(db *d, dbent **e, size_t off, const char *p, size_t n);

/* Compress queued values for about budget_us microseconds (cron). Returns the
 * number of values compressed or sealed. */
size_t sv_compress_step(int64_t budget_us);
/* A string value now lives under a new key (RENAME, MOVE, COPY): queue it again
 * if it still waits for compression. */
void sv_note_moved(db *d, dbent *e);
/* Compress e now if it waits for compression (tests, DEBUG). */
void sv_compress_entry(dbent *e);
/* Keys waiting for compression (INFO). */
size_t sv_compress_pending(void);

/* hll-sparse-max-bytes: the size up to which a HyperLogLog (a string value,
 * cmd_hll.c) stays sparse (config.c). */
extern long long hll_sparse_max_bytes;

/* Hot values (see value.c's top comment): a compressed value read whole
 * sv_hot_reads times in one second (compress-hot-reads; 0: never) is kept raw
 * while it is read, within sv_hot_max_memory bytes (compress-hot-max-memory)
 * for all of them. */
extern int sv_hot_reads;
extern long long sv_hot_max_memory;
/* INFO memory: bytes and values kept raw because hot now; values decoded
 * because hot, and hot values given back to the background compression, since
 * start. */
extern size_t sv_hot_bytes, sv_hot_values;
extern unsigned long long sv_hot_decoded, sv_hot_cooled;
/* A whole read of e (GET) is about to be answered: counts it and, if that makes
 * e's compressed value hot, decodes it into a RAW value (in place: the entry
 * keeps its address, which is returned). A value that would pass
 * compress-hot-max-memory, is past 3/4 of maxmemory, is shared, already queued,
 * or corrupt is left as it is. */
dbent *sv_read_hot(db *d, dbent *e);

/* Register the string's row in the type table (keyspace/type.h). */
void sv_type_register(void);

/* "int", "embstr", "raw" or "lz4", as OBJECT ENCODING reports. */
const char *sv_encoding_name(const dbent *e);

#endif
