/*
 * support/os/Image.h -- the address ranges of the loaded program image and its
 * shared libraries, so that a checker can prove an address is readable
 * static data (an info table, a static closure) before it reads through
 * it.  Linux/glibc only (dl_iterate_phdr), like the rest of support/os/.
 *
 * Not thread-safe: callers serialise (the sanity checker runs with the
 * world stopped).
 */
#ifndef STRATA_OS_IMAGE_H
#define STRATA_OS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

/* True iff [p, p + n_bytes) lies inside one loaded, readable segment of
 * the program or of a shared library.  The segment table is read once and
 * read again when an address is not found in it (a library loaded by
 * dlopen since).  False too if the table cannot be read. */
bool os_image_contains(const void *p, size_t n_bytes);

#endif /* STRATA_OS_IMAGE_H */
