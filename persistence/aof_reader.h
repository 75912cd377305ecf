/* aof_reader.h -- read a log file record by record, and load a whole manifest.
 *
 * Why: start-up replays the log before serving, and the check tool verifies it;
 * both need the same verdict on every byte. The reader reads the file in large
 * blocks (4 MB, more for a larger record) with no allocation per record, checks
 * each record's length, CRC and payload structure, and hands back the payload in
 * place: decode it with the iterators of aof.h.
 *
 * Verdicts (aof_status), each with the byte offset it concerns:
 *   AOF_OK       a record, CRC and structure checked.
 *   AOF_END      clean end of file after a whole record (or the header).
 *   AOF_TORN     the last record is cut short by the end of the file: fewer
 *                than the 8 bytes of its header remain, or its length runs past
 *                the end of the file, or everything from the record's start on is
 *                zero bytes (a file extended but not written, after a power
 *                loss): a crash mid-write. Offset = where the record starts, the
 *                length of the valid prefix; dropped = bytes from there to the
 *                end.
 *   AOF_CORRUPT  a complete record (its whole length present) whose CRC is bad,
 *                wherever it is: in the middle, last in the file, or followed by
 *                zeros only (a flipped bit is damage, not a tear, and cutting it
 *                would lose an acknowledged write); a bad structure; an
 *                impossible length (0 or above AOF_PAYLOAD_MAX) that is not a
 *                zero tail; an unknown record type; or a bad file header (offset
 *                0). Never silently skipped: the file must be repaired.
 *   AOF_IOERR    read() failed (why holds strerror).
 * After a verdict other than AOF_OK the reader is stuck on it: next returns it
 * again.
 *
 * Limitation, by design of a length-prefixed format: a record whose length field
 * is damaged so that it points past the end of the file is indistinguishable from
 * a torn write and is reported TORN. `dropped` says how much a truncation would
 * lose, so a caller may refuse to truncate a suspiciously large tail.
 *
 * Errors: aof_reader_open returns NULL with errno set when the file cannot be
 * opened or stat'ed; aof_load returns the verdict. */
#ifndef SP_AOF_READER_H
#define SP_AOF_READER_H

#include <stddef.h>
#include <stdint.h>

#include "aof.h"
#include "aof_manifest.h"

typedef enum aof_status {
    AOF_OK = 0,
    AOF_END,
    AOF_TORN,
    AOF_CORRUPT,
    AOF_IOERR
} aof_status;

typedef struct aof_reader aof_reader;

/* Open path and read its header (a bad header is reported by the first
 * aof_reader_next, as AOF_CORRUPT at offset 0). Returns NULL with errno set if
 * the file cannot be opened. Free with aof_reader_close. */
aof_reader *aof_reader_open(const char *path);

/* The next record. On AOF_OK, *rec is filled; rec->payload points into the
 * reader's buffer and stays valid until the next call or close. */
aof_status aof_reader_next(aof_reader *r, aof_record *rec);

/* The file header, or NULL if it was bad. */
const aof_header *aof_reader_header(const aof_reader *r);
/* Bytes: after AOF_OK, the end of the last record returned (the length of the
 * verified prefix, for progress); after AOF_END the file size; after TORN or
 * CORRUPT where the bad record starts (0 for a bad header). */
uint64_t aof_reader_offset(const aof_reader *r);
/* Bytes from aof_reader_offset to the end of the file (what --fix would cut). */
uint64_t aof_reader_dropped(const aof_reader *r);
/* Bytes, the file's size when it was opened. */
uint64_t aof_reader_size(const aof_reader *r);
/* Why the last verdict was not OK/END: a static or reader-owned string ("" if none). */
const char *aof_reader_why(const aof_reader *r);
/* Close the file and free the reader. aof_reader_close(NULL) does nothing. */
void aof_reader_close(aof_reader *r);

/* Short name of a status: "ok", "end", "torn", "corrupt", "io-error". */
const char *aof_status_name(aof_status s);

/* ---- Loading a manifest --------------------------------------------------------
 *
 * aof_load replays every file the manifest names, in order, calling fn for each
 * record. fn returns 0 to go on, or -1 to stop: the load then ends AOF_CORRUPT at
 * that record with fn's message (an effect the server cannot apply: unknown
 * command, db out of range, a compressed value that fails to rebuild).
 *
 * A file's header must carry the kind the manifest gives it (and its seq, when
 * the header has one). A torn tail is accepted only in the last file: there it
 * ends the load with AOF_TORN (every record before it was replayed; the caller
 * truncates the file with aof_file_truncate, or refuses, by its
 * aof-load-truncated setting); in any other file it is AOF_CORRUPT. */
typedef struct aof_load_result {
    aof_status status;   /* AOF_END: everything loaded; TORN, CORRUPT, IOERR */
    char file[AOF_NAME_MAX + 1]; /* the file the verdict concerns */
    uint64_t offset;     /* bytes, in that file: where the bad record starts */
    uint64_t dropped;    /* bytes, from offset to that file's end */
    char why[160];
    uint64_t files;      /* files opened */
    uint64_t records;    /* records replayed */
    uint64_t effects;    /* effects replayed */
    uint64_t bytes;      /* bytes of log verified (headers and records) */
} aof_load_result;

typedef int aof_record_fn(void *ctx, const aof_mfile *f, const aof_record *rec, char *why,
                          size_t whylen);

/* Replay the files of m (in dir) through fn. Returns res->status. */
aof_status aof_load(const char *dir, const aof_manifest *m, aof_record_fn *fn, void *ctx,
                    aof_load_result *res);

/* 1 if the files of m from index i on (in dir) hold no record: each is at
 * most a header (a missing file or i past the end: 0 and 1). A torn record just
 * before such files is still the log's torn tail: an incremental rewrite names
 * its next, empty incr in the manifest while the log is still written to the
 * current one (aof_rewrite_prepare), so a crash there tears the last record of
 * a file that is not the manifest's last. aof_load and the check tool use it. */
int aof_rest_empty(const char *dir, const aof_manifest *m, size_t i);

#endif
