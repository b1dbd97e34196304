/*
 * ghc/StubPause.c -- pausing a GHC program for the debugger: rts_pause on
 * a thread of its own, with a timeout the protocol's PAUSE needs, and new
 * eras applied as the program resumes.  Relies on GHC's public RTS API
 * (RtsAPI.h: rts_pause, rts_resume) and on StubView.c for what the pause
 * reads first.  See docs/design/ghc-stub.md.
 */
#include "GhcStub.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

/* Note [Pausing a GHC program]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * rts_pause stops every Haskell thread at a safe point and returns only
 * when it holds every capability; rts_resume, rts_listThreads and
 * rts_listMiscRoots must be called on the thread that paused.  It has no
 * timeout: a Haskell thread looping without allocating never reaches a
 * safe point.  So one thread of the stub, the pauser, owns pausing: it
 * waits for a request, calls rts_pause, reads what only it may read
 * (stub_view_build), then says PAUSED and waits until the server's thread
 * says RUNNING again, applies the eras asked for, and calls rts_resume.
 * The server's thread waits for PAUSED at most the request's timeout; on
 * a timeout it withdraws the request (state RUNNING), so a pause that
 * completes later is undone at once by the pauser.  While PAUSED the
 * server's thread reads the heap: no Haskell thread runs and no GC can
 * start (the pauser holds every capability), and the mutex hand-over makes
 * the pauser's reads and the mutators' last writes visible to it
 * (.inv.ghc-paused-reads). */

typedef enum { RUNNING, WANTED, PAUSED } PauseState;

static pthread_mutex_t pause_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pause_changed = PTHREAD_COND_INITIALIZER;
static PauseState pause_state = RUNNING;       /* under pause_lock */
static uint64_t wanted_ns, paused_ns;          /* under pause_lock */
static uint64_t new_eras_wanted;               /* under pause_lock */
static uint64_t era_when_paused;               /* under pause_lock */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool stub_eras_in_headers(void)
{
#if defined(PROFILING)
    return doingErasProfiling();
#else
    return false;
#endif
}

static uint64_t current_era(void)
{
#if defined(PROFILING)
    return stub_eras_in_headers() ? (uint64_t)getUserEra() : 0;
#else
    return 0;
#endif
}

/* Starts the eras NEW_ERA asked for, with the pauser holding every
 * capability (so no allocation sees a half-made change), and marks the
 * eventlog as strata's own stub does. */
static void advance_eras(PauseToken *token, uint64_t n)
{
#if defined(PROFILING)
    if (n == 0)
        return;
    incrementUserEra((StgWord)n);
    StgWord era = getUserEra();
    char marker[64];
    snprintf(marker, sizeof marker, "strata-debug: era %llu", (unsigned long long)era);
    traceUserMarker(pauseTokenCapability(token), marker);
#else
    (void)token;
    (void)n;
#endif
}

static void *pauser_main(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&pause_lock);
        while (pause_state != WANTED)
            pthread_cond_wait(&pause_changed, &pause_lock);
        pthread_mutex_unlock(&pause_lock);

        PauseToken *token = rts_pause();
        stub_view_build();

        pthread_mutex_lock(&pause_lock);
        if (pause_state == WANTED) {
            pause_state = PAUSED;
            paused_ns = now_ns();
            era_when_paused = current_era();
            pthread_cond_broadcast(&pause_changed);
            while (pause_state == PAUSED)
                pthread_cond_wait(&pause_changed, &pause_lock);
        }
        uint64_t eras = new_eras_wanted;
        new_eras_wanted = 0;
        pthread_mutex_unlock(&pause_lock);
        advance_eras(token, eras);
        rts_resume(token);
    }
    return NULL;
}

int stub_pause_init(void)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int err = pthread_create(&t, &attr, pauser_main, NULL);
    pthread_attr_destroy(&attr);
    return err;
}

int stub_pause(uint32_t timeout_ms, uint64_t *latency_ns, char *err, size_t err_len)
{
    if (timeout_ms == 0)
        timeout_ms = 10000;
    if (getNumCapabilities() == 0) {
        snprintf(err, err_len, "pause: the Haskell runtime is not running (yet)");
        return DEBUG_STATUS_UNSUPPORTED;
    }
    pthread_mutex_lock(&pause_lock);
    if (pause_state == PAUSED) {
        pthread_mutex_unlock(&pause_lock);
        *latency_ns = 0;
        return DEBUG_STATUS_OK;
    }
    pause_state = WANTED;
    wanted_ns = now_ns();
    pthread_cond_broadcast(&pause_changed);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    while (pause_state == WANTED)
        if (pthread_cond_timedwait(&pause_changed, &pause_lock, &deadline) == ETIMEDOUT)
            break;
    int status = DEBUG_STATUS_OK;
    if (pause_state == PAUSED) {
        *latency_ns = paused_ns - wanted_ns;
    } else {
        pause_state = RUNNING;   /* withdrawn: a late pause is undone at once */
        snprintf(err, err_len,
                 "pause: the program did not stop within %u ms (a Haskell thread that "
                 "does not allocate cannot be stopped); it runs on", timeout_ms);
        status = DEBUG_STATUS_TIMEOUT;
    }
    pthread_mutex_unlock(&pause_lock);
    return status;
}

bool stub_resume(void)
{
    pthread_mutex_lock(&pause_lock);
    bool was = pause_state == PAUSED;
    if (was) {
        pause_state = RUNNING;
        pthread_cond_broadcast(&pause_changed);
    }
    pthread_mutex_unlock(&pause_lock);
    return was;
}

bool stub_is_paused(void)
{
    pthread_mutex_lock(&pause_lock);
    bool p = pause_state == PAUSED;
    pthread_mutex_unlock(&pause_lock);
    return p;
}

uint64_t stub_new_era(void)
{
    pthread_mutex_lock(&pause_lock);
    new_eras_wanted++;
    uint64_t era = era_when_paused + new_eras_wanted;
    pthread_mutex_unlock(&pause_lock);
    return era;
}

uint64_t stub_era_now(void)
{
    pthread_mutex_lock(&pause_lock);
    uint64_t era = pause_state == PAUSED ? era_when_paused : 0;
    pthread_mutex_unlock(&pause_lock);
    return era;
}
