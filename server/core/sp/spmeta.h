/* spmeta.h -- an entry's metadata: a small map of fields to values.
 *
 * Why: a harness keeps beside each observation where it came from (a source
 * path, the tool that produced it, the step), to list and filter entries by it
 * (SP.LIST ... WHERE field value) without side entries. The map is part of the
 * entry's state, so it is versioned, shared by snapshots, forks and history
 * with the entry, and logged with it.
 *
 * Bounds (so a map stays small and a listing bounded): at most SPMETA_MAX_FIELDS
 * fields; field names 1..SPMETA_FIELD_MAX bytes of A-Z a-z 0-9 _ - . : /;
 * values any bytes; the fields' and values' bytes together at most
 * SPMETA_MAX_BYTES.
 *
 * A map is immutable once built, one allocation, fields sorted by name
 * (bytewise); an empty map is NULL. No globals; memory from the accounted
 * allocator (mem.h), allocation failure aborts. */
#ifndef SP_SPMETA_H
#define SP_SPMETA_H

#include <stddef.h>

#define SPMETA_MAX_FIELDS 32
#define SPMETA_MAX_BYTES 4096
#define SPMETA_FIELD_MAX 64

typedef struct spmeta spmeta;

/* One field: f[0..flen) = v[0..vlen). */
typedef struct spmeta_kv {
    const char *f;
    size_t flen;
    const char *v;
    size_t vlen;
} spmeta_kv;

/* spmeta_edit's outcomes. */
enum { SPMETA_OK = 0, SPMETA_TOO_MANY = -1, SPMETA_TOO_BIG = -2 };

/* 1 if f[0..n) is a valid field name (see the bounds above), else 0. */
int spmeta_field_valid(const char *f, size_t n);

/* A new map: old's fields (none if clear) with set[0..nset) put on them (a
 * later field of the same name wins), then without those named in
 * del[0..ndel) (only their names are read). The names must
 * be valid (spmeta_field_valid). *out gets the new map (NULL if empty; the
 * caller frees it with spmeta_free; old is left as it is) and SPMETA_OK, or
 * *out is NULL and SPMETA_TOO_MANY / SPMETA_TOO_BIG when the result would pass
 * a bound. */
int spmeta_edit(const spmeta *old, int clear, const spmeta_kv *set, size_t nset, const spmeta_kv *del, size_t ndel,
                spmeta **out);

/* Fields in m (0 for NULL). */
size_t spmeta_count(const spmeta *m);
/* Bytes of m's field names and values together (0 for NULL). */
size_t spmeta_bytes(const spmeta *m);
/* Bytes of memory m holds (0 for NULL). */
size_t spmeta_stored(const spmeta *m);
/* The i-th field of m in name order (i < spmeta_count(m)); pointers into m. */
void spmeta_at(const spmeta *m, size_t i, spmeta_kv *kv);
/* The value of field f in m, its length in *vlen, or NULL if m has no such field. */
const char *spmeta_get(const spmeta *m, const char *f, size_t flen, size_t *vlen);
/* A copy of m (NULL for NULL), the caller's. */
spmeta *spmeta_dup(const spmeta *m);
/* 1 if a and b hold the same fields and values, else 0. */
int spmeta_equal(const spmeta *a, const spmeta *b);
/* Free m; spmeta_free(NULL) does nothing. */
void spmeta_free(spmeta *m);

#endif
