/*
 * support/os/Image.c -- the readable segments of the loaded objects (see
 * Image.h).  Relies on glibc's dl_iterate_phdr; used by the sanity checker
 * (sm/Sanity.c) to tell a static closure or info table from a stray word
 * without reading through the stray word.
 */
#include "Image.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>

#include "GrowArray.h"

typedef struct {
    uintptr_t start;   /* first byte of a PT_LOAD segment with PF_R */
    uintptr_t end;     /* one past its last byte in memory */
} Segment;

static Segment *segments;      /* sorted by start */
static size_t n_segments, cap_segments;
static bool table_failed;      /* the last read ran out of C heap */

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || ph->p_memsz == 0)
            continue;
        if (GROW_ARRAY_RESERVE_MIN(segments, cap_segments, n_segments + 1, 64) != 0) {
            table_failed = true;
            return 1;   /* stops the iteration */
        }
        uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        segments[n_segments++] = (Segment){start, start + (uintptr_t)ph->p_memsz};
    }
    return 0;
}

static int cmp_segment(const void *a, const void *b)
{
    uintptr_t x = ((const Segment *)a)->start, y = ((const Segment *)b)->start;
    return x < y ? -1 : x > y;
}

static void read_table(void)
{
    n_segments = 0;
    table_failed = false;
    dl_iterate_phdr(add_object, NULL);
    qsort(segments, n_segments, sizeof *segments, cmp_segment);
}

static bool table_contains(uintptr_t lo, uintptr_t hi)
{
    size_t a = 0, b = n_segments;   /* the last segment starting at or below lo */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (segments[mid].start <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a > 0 && hi <= segments[a - 1].end;
}

bool os_image_contains(const void *p, size_t n_bytes)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + n_bytes;
    if (hi < lo)
        return false;
    if (n_segments > 0 && table_contains(lo, hi))
        return true;
    read_table();   /* first use, or a library loaded since */
    return !table_failed && table_contains(lo, hi);
}
