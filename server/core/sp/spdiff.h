/* spdiff.h -- a unified line diff of two texts (SP.DIFF ns from to name).
 *
 * Why: a harness that compares an entry before and after an agent's cycle
 * wants what changed in it, in the format people and models read (diff -u),
 * not two copies. Written here (Myers's O((N+M)D) greedy algorithm, common
 * prefix and suffix trimmed first) because no library in Debian fits a server
 * that must bound every step's work and its output.
 *
 * Bounds (the caller reads both texts whole first): the lines left after
 * trimming the common prefix and suffix at most SPDIFF_MAX_LINES on each side,
 * the edit distance (lines removed plus lines added) at most SPDIFF_MAX_EDITS,
 * the output at most SPDIFF_MAX_OUT bytes. So one diff costs at most about
 * 2 x 20,000 x 1,000 comparisons of line hashes and 4 MB of working memory.
 *
 * Lines end with '\n' (the last one may not: it is then followed by diff's
 * "\ No newline at end of file"). Hunks carry 3 lines of context. No globals;
 * memory from mem.h; nothing here knows the server. */
#ifndef SP_SPDIFF_H
#define SP_SPDIFF_H

#include <stddef.h>

#define SPDIFF_MAX_LINES 20000
#define SPDIFF_MAX_EDITS 1000
#define SPDIFF_MAX_OUT (1024 * 1024)
#define SPDIFF_MAX_BYTES (16 * 1024 * 1024) /* a side, for callers: what they read whole */

enum { SPDIFF_OK = 0, SPDIFF_TOO_MANY_LINES = -1, SPDIFF_TOO_MANY_EDITS = -2, SPDIFF_TOO_LONG = -3 };

/* The unified diff from a[0..na) to b[0..nb), headed by "--- <la>\n+++ <lb>\n"
 * (la, lb: NUL-terminated labels), into *out (xmalloc'd, NUL-terminated, the
 * caller frees it with xfree) of *outlen bytes; empty (*outlen 0) when the
 * texts are equal. Returns SPDIFF_OK, or one of the bounds exceeded (*out
 * NULL then). */
int spdiff_unified(const char *a, size_t na, const char *b, size_t nb, const char *la, const char *lb, char **out,
                   size_t *outlen);

#endif
