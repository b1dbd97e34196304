/*
 * utils/strata-debug/Moments.c -- `strata-debug mark` and the new era of
 * `snapshot --new-era` (Moments.h): after them, everything the program
 * allocates is of a later era than the one the snapshot recorded, so a
 * diff tells new objects from old ones exactly (Note [What is new, by
 * era] in utils/debug-client/Diff.c).
 */
#include "Moments.h"

#include <inttypes.h>

#include "Json.h"

void say_new_era(DbgClient *c, FILE *text, uint64_t era)
{
    fprintf(text, "era %" PRIu64 " was current; the program resumes in era %" PRIu64
                  ": what it allocates from now on is newer\n", dbg_target(c)->era, era);
}

int mark_new_era(DbgClient *c, const char *cmd, FILE *text, uint64_t *era)
{
    if (dbg_new_era(c, era) != 0) {
        fprintf(stderr, "strata-debug: %s: %s\n", cmd, dbg_error(c));
        return 1;
    }
    if (text != NULL)
        say_new_era(c, text, *era);
    return 0;
}

int cmd_mark(DbgClient *c, bool json)
{
    uint64_t era;
    if (mark_new_era(c, "mark", json ? NULL : stdout, &era) != 0)
        return 1;
    if (json) {
        Json j;
        json_begin(&j, stdout, c, "mark");
        json_u64(&j, "new_era", era);
        json_end(&j);
    }
    return 0;
}
