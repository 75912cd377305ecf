/* fuzz_aof.c -- libFuzzer target: the log reader (persistence/aof_reader.c) and
 * the payload decoder (persistence/aof.c) over arbitrary bytes.
 *
 * The input (after its first byte) is a whole log file, written to a memfd and
 * opened by path (/proc/self/fd/N) as the server opens its files. The reader
 * reads it record by record until its verdict; every record it accepts is walked
 * as the loader walks it: effects, arguments, chunk lists, and each compressed
 * value rebuilt with aof_arg_lzval and read back whole.
 *
 * Random bytes almost never carry a right CRC, so when the first byte is odd the
 * target fixes the header's CRC and each record's CRC (where the record's length
 * fits in the file) before writing: the fuzzer then reaches the payload decoder
 * and the value loader, while even first bytes keep the framing itself under
 * test. Beyond the sanitizers' checks: a verdict is one of the five, the
 * reader's offsets stay inside the file, and a rebuilt value has the length its
 * argument announces. */
#include "aof.h"
#include "aof_reader.h"
#include "lz/lzval.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Set the CRCs of the header and of every record whose length fits. */
static void fix_crcs(unsigned char *f, size_t n)
{
    size_t off = AOF_HEADER_SIZE;

    if (n < AOF_HEADER_SIZE)
        return;
    memcpy(f, AOF_MAGIC, 5);
    aof_put32(f + 28, aof_crc32c(0, f, 28));
    while (n - off >= AOF_REC_HDR) {
        uint32_t len = aof_get32(f + off);
        if (len > n - off - AOF_REC_HDR)
            return;
        aof_put32(f + off + 4, aof_crc32c(0, f + off + AOF_REC_HDR, len));
        off += AOF_REC_HDR + len;
    }
}

/* Walk a record the reader accepted, as the loader does. */
static void walk(const aof_record *rec)
{
    aof_iter ei, ai, ci;
    aof_effect e;
    aof_arg a;
    aof_chunk c;

    aof_effects_begin(&ei, rec);
    while (aof_effects_next(&ei, &e)) {
        aof_args_begin(&ai, &e);
        while (aof_args_next(&ai, &a)) {
            lzval *v;
            if (a.kind != AOF_ARG_LZVAL)
                continue;
            aof_chunks_begin(&ci, &a);
            while (aof_chunks_next(&ci, &c))
                ;
            v = aof_arg_lzval(&a);
            if (v) {
                size_t len = lzval_len(v);
                char *raw = malloc(len + 1);
                if (!raw)
                    abort();
                if (len != a.len || lzval_read(v, 0, len, raw, NULL) < 0) {
                    fprintf(stdout, "a rebuilt value does not read back: %zu bytes, %llu announced\n", len,
                            (unsigned long long)a.len);
                    fflush(stdout);
                    abort();
                }
                free(raw);
                lzval_free(v);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *f;
    char path[64];
    aof_reader *r;
    aof_record rec;
    aof_status st;
    int fd;

    if (size < 1)
        return 0;
    f = malloc(size);
    if (!f)
        abort();
    memcpy(f, data + 1, size - 1);
    if (data[0] & 1)
        fix_crcs(f, size - 1);
    fd = memfd_create("fuzz_aof", 0);
    if (fd < 0 || write(fd, f, size - 1) != (ssize_t)(size - 1))
        abort();
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    r = aof_reader_open(path);
    if (!r)
        abort();
    while ((st = aof_reader_next(r, &rec)) == AOF_OK) {
        if (rec.offset + AOF_REC_HDR + rec.len > size - 1)
            abort();
        walk(&rec);
    }
    if (st != AOF_END && st != AOF_TORN && st != AOF_CORRUPT)
        abort();
    if (aof_reader_offset(r) > size - 1 || aof_reader_offset(r) + aof_reader_dropped(r) > size - 1)
        abort();
    aof_reader_close(r);
    close(fd);
    free(f);
    return 0;
}
