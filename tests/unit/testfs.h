/* testfs.h -- file helpers shared by the unit tests that write real files
 * (test_aof.c, test_aof_stream.c): the test's temporary directory and paths in
 * it, remove a directory's files, size and existence of a path, read or write
 * a whole file, a monotonic clock. Test code: failures of the
 * helpers themselves show up as failed checks in the caller. */
#ifndef SP_TESTFS_H
#define SP_TESTFS_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The test program's temporary directory (its main creates it). */
static char tmpdir[256];

/* tmpdir/name, in one of four rotating buffers (a call may take up to four). */
static inline char *path_in(const char *name)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];

    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

/* Milliseconds of a monotonic clock. */
static inline int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Remove everything under dir (not dir itself). */
static inline void rm_dir_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[1024];

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= (int)sizeof(p))
            continue;
        if (unlink(p) < 0) {
            rm_dir_files(p);
            rmdir(p);
        }
    }
    closedir(d);
}

/* Bytes of path, -1 if it cannot be stat'ed. */
static inline long long file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) < 0 ? -1 : (long long)st.st_size;
}

static inline int file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* The whole file (malloc'd, the caller frees), *n its length; NULL if unreadable. */
static inline unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    long long sz = file_size(path);
    unsigned char *p;

    *n = 0;
    if (!f || sz < 0) {
        if (f)
            fclose(f);
        return NULL;
    }
    p = malloc((size_t)sz + 1);
    *n = fread(p, 1, (size_t)sz, f);
    fclose(f);
    return p;
}

static inline void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    fwrite(p, 1, n, f);
    fclose(f);
}

#endif
