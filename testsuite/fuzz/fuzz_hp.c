/*
 * testsuite/fuzz/fuzz_hp.c -- fuzz entry point for the report's .hp
 * reader (utils/report/ProfileHp.c).  Each input is read as a .hp file
 * (through fmemopen, as from a file).  The reader must accept or reject it
 * without reading outside it; on success every band has a label, its
 * statistics are finite numbers where the fit is claimed, and no band
 * claims a peak below its last census.  Built with libFuzzer by fuzz.sh;
 * replayed over testsuite/fuzz/corpus/hp by make check (replay.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ProfileHp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* fmemopen of an empty buffer fails: an empty file is read as one. */
    FILE *f = size > 0 ? fmemopen((void *)data, size, "rb") : fopen("/dev/null", "rb");
    if (f == NULL)
        return 0;
    Filters filters = {0};
    Profile *p = calloc(1, sizeof *p);
    if (p == NULL) {
        fclose(f);
        return 0;
    }
    profile_init(p, "fuzz.hp", &filters);
    int rc = profile_read_hp(p, f, "fuzz_hp");
    fclose(f);
    if (rc == 0) {
        for (size_t i = 0; i < p->n_bands; i++) {
            const Band *b = &p->bands[i];
            if (b->label == NULL)
                abort();
            BandStats st;
            profile_band_stats(p, b, &st);
            if (st.last_bytes > b->peak_bytes)
                abort();
            if (st.have_fit && (!isfinite(st.slope) || !isfinite(st.intercept)))
                abort();
        }
    }
    profile_free(p);
    free(p);
    return 0;
}
