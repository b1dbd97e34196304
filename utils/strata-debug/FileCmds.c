/*
 * utils/strata-debug/FileCmds.c -- the commands that write the heap to a
 * file: gml (the object graph for graph tools) and snapshot (the heap
 * itself, for every later analysis and for diff; --new-era also starts a
 * new era in the program, Moments.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "FileCmds.h"
#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "Json.h"
#include "Moments.h"

/* With --json, what was written: the file, the objects, and for a
 * snapshot the era the program resumes in. */
static void json_written(DbgClient *c, const DbgReach *r, const char *cmd, const Opts *o,
                         const uint64_t *new_era)
{
    size_t n;
    dbg_reach_objects(r, &n);
    Json j;
    json_begin(&j, stdout, c, cmd);
    json_str(&j, "file", o->file);
    json_u64(&j, "objects", n);
    if (new_era != NULL)
        json_u64(&j, "new_era", *new_era);
    json_end(&j);
}

int cmd_gml(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)q;
    char err[1200];
    int fd = dbg_create_private(o->file, err, sizeof err);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd < 0)
        return die("gml: %s", err);
    if (f == NULL) {
        int st = die("gml: %s: %s", o->file, strerror(errno));
        close(fd);
        return st;
    }
    int w = dbg_write_gml(c, r, f);
    if (fclose(f) != 0 || w != 0)
        return die("gml: %s: %s", o->file, w ? dbg_error(c) : strerror(errno));
    if (o->json)
        json_written(c, r, "gml", o, NULL);
    return 0;
}

int cmd_snapshot(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)q;
    uint64_t new_era = 0;   /* --new-era: the era the program resumes in */
    /* The new era is asked for first, so that the snapshot records it (a
     * diff then knows that nothing allocated after A is of A's era); the
     * program changes era only as it resumes (Note [A new era on resume]
     * in rts/debug/DebugServer.c), so the heap written is the same. */
    if (o->new_era && mark_new_era(c, "snapshot", NULL, &new_era))
        return 1;
    if (dbg_write_snapshot(c, r, o->file) != 0)
        return die("snapshot: %s", dbg_error(c));
    if (o->new_era && !o->json)
        say_new_era(c, stdout, new_era);
    if (o->json)
        json_written(c, r, "snapshot", o, &new_era);
    return 0;
}
