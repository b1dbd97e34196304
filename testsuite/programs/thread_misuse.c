/*
 * testsuite/programs/thread_misuse.c -- each misuse of the thread API,
 * one per run, for threads.sh to check the message (and that the program
 * goes on, or stops, as documented):
 *
 *     thread_misuse CASE [+RTS ... -RTS]
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <strata.h>

static Capability *other_cap;

static void *unlock_not_held(void *arg)
{
    (void)arg;
    rts_unlock(NULL);   /* this thread holds nothing */
    return NULL;
}

static void *era_without_cap(void *arg)
{
    (void)arg;
    setUserEra(7);
    return NULL;
}

static void *alloc_without_cap(void *arg)
{
    (void)arg;
    (void)strata_alloc_mut_var();   /* aborts with a message */
    return NULL;
}

static void *take_and_keep(void *arg)
{
    (void)arg;
    other_cap = rts_lock();
    return NULL;   /* never unlocks */
}

static void *take_and_give_back(void *arg)
{
    (void)arg;
    other_cap = rts_lock();
    rts_unlock(other_cap);
    return NULL;
}

static void on_thread(void *(*fn)(void *))
{
    pthread_t t;
    rts_suspend();   /* the other thread may need a capability */
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
    rts_resume();
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    const char *c = argc > 1 ? argv[1] : "";
    if (strcmp(c, "unlock-not-held") == 0) {
        on_thread(unlock_not_held);
    } else if (strcmp(c, "resume-without-suspend") == 0) {
        rts_resume();
    } else if (strcmp(c, "lock-twice") == 0) {
        if (rts_lock() != NULL)
            return 1;
    } else if (strcmp(c, "unlock-main") == 0) {
        rts_unlock(rts_lock());   /* NULL: lock-twice; then the main thread's */
    } else if (strcmp(c, "unlock-other-cap") == 0) {
        on_thread(take_and_give_back);
        rts_unlock(other_cap == NULL ? NULL : (Capability *)((char *)other_cap + 1));
    } else if (strcmp(c, "era-without-cap") == 0) {
        on_thread(era_without_cap);
        if (getUserEra() != 1)
            return 1;   /* the refused call changed nothing */
    } else if (strcmp(c, "alloc-without-cap") == 0) {
        on_thread(alloc_without_cap);
    } else if (strcmp(c, "exit-with-thread-attached") == 0) {
        on_thread(take_and_keep);
        /* Its capability is back: this era change interrupts only live
         * capabilities, and a collection needs no one else. */
        setUserEra(5);
        strata_perform_gc(1);
        if (strata_my_thread_id() != 1 || getUserEra() != 5)
            return 1;
        fflush(stdout);
    } else {
        fprintf(stderr, "usage: thread_misuse CASE\n");
        return 2;
    }
    hs_exit();
    return 0;
}
