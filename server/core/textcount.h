/* textcount.h -- characters and newlines of a byte string, eight bytes at a time.
 *
 * Why: the value layer (lzval: per sub-block counts for its index) and the
 * scratchpad (sp: an entry's counts) both need "how many UTF-8 characters and
 * how many '\n' in these bytes", on every write; one implementation serves
 * both. Characters are counted as bytes that are not UTF-8 continuation bytes
 * (10xxxxxx), which is the code-point count for valid UTF-8 and a stable count
 * for anything else. No state, no allocation, no server types. */
#ifndef SP_TEXTCOUNT_H
#define SP_TEXTCOUNT_H

#include <stddef.h>

/* Count p[0..n): *chars gets the bytes that are not 10xxxxxx, *nl the '\n'
 * bytes. Either output may be NULL. Reads exactly n bytes. */
void tc_count(const char *p, size_t n, size_t *chars, size_t *nl);

#endif
