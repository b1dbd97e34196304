/*
 * testsuite/programs/live_target.c -- a program for the eventlog socket
 * tests (testsuite/scripts/eventlog-socket.sh).
 *
 *     live_target until-stop [MAX_SECONDS]   allocate (a small live list that
 *         keeps changing, plus a retained one that grows) until a client
 *         sends the command ("live-test", 1), which this program registers
 *         with strata_control_register; exits 3 after MAX_SECONDS (default
 *         60) without it.  Prints "ready" once the runtime is up, and
 *         "marker command ran" for each ("live-test", 2): a client's
 *         commands before it in the same stream have run by then.
 *     live_target alloc MB [wait]   allocate MB megabytes in small
 *         short-lived objects, then print the peak resident set ("VmHWM
 *         <kB>"); with wait, then print "allocated" and go on allocating
 *         slowly until the stop command comes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strata.h>

STRATA_CONSTR_INFO(Cell_info, "Cell", 1, 1);   /* next; value */
static StgClosure Nil_closure = {&Cell_info};

static volatile int stop_requested;
static int custom_runs;

static void on_stop(uint8_t command, void *data)
{
    custom_runs++;
    printf("custom command ran (command=%u, data=%d, runs=%d)\n", (unsigned)command,
           *(int *)data, custom_runs);
    fflush(stdout);
    stop_requested = 1;
}

static void on_marker(uint8_t command, void *data)
{
    (void)data;
    printf("marker command ran (command=%u)\n", (unsigned)command);
    fflush(stdout);
}

static StgClosure *cons(StgClosure *next, StgWord v)
{
    STRATA_ROOTS(r, 1);
    r[0] = next;
    StgClosure *c = strata_alloc_constr(&Cell_info);
    STRATA_FIELD(c, 0) = r[0];
    STRATA_WORD(c, 1) = v;
    STRATA_ROOTS_POP(r);
    return c;
}

static long vm_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    if (f != NULL)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    static int data = 42;
    if (strata_control_register("live-test", 1, on_stop, &data) != 0 ||
        strata_control_register("live-test", 2, on_marker, NULL) != 0)
        return 2;
    hs_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "until-stop";
    STRATA_ROOTS(r, 2);
    r[0] = &Nil_closure;   /* short-lived */
    r[1] = &Nil_closure;   /* retained, grows slowly */
    if (strcmp(mode, "alloc") == 0) {
        long mb = argc > 2 ? atol(argv[2]) : 1024;
        StgWord cells = (StgWord)mb * 1024 * 1024 / (3 * sizeof(StgWord));
        for (StgWord i = 0; i < cells; i++) {
            r[0] = i % 1000 == 0 ? &Nil_closure : cons(r[0], i);
        }
        printf("VmHWM %ld\n", vm_hwm_kb());
        if (argc > 3 && strcmp(argv[3], "wait") == 0) {
            printf("allocated\n");
            fflush(stdout);
            time_t start = time(NULL);
            for (StgWord i = 0; !stop_requested && difftime(time(NULL), start) < 60; i++)
                r[0] = i % 1000 == 0 ? &Nil_closure : cons(r[0], i);
        }
        STRATA_ROOTS_POP(r);
        hs_exit();
        return 0;
    }
    double max_secs = argc > 2 ? atof(argv[2]) : 60;
    printf("ready\n");
    fflush(stdout);
    time_t start = time(NULL);
    StgWord i = 0;
    while (!stop_requested) {
        r[0] = i % 1000 == 0 ? &Nil_closure : cons(r[0], i);
        if (i % 5000 == 0)
            r[1] = cons(r[1], i);
        if (++i % 100000 == 0 && difftime(time(NULL), start) > max_secs) {
            fprintf(stderr, "live_target: no stop command within %g s\n", max_secs);
            STRATA_ROOTS_POP(r);
            hs_exit();
            return 3;
        }
    }
    STRATA_ROOTS_POP(r);
    printf("stopped after %lu allocations\n", (unsigned long)i);
    hs_exit();
    return 0;
}
