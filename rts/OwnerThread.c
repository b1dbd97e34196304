/*
 * rts/OwnerThread.c -- the thread that holds the runtime (see
 * OwnerThread.h).  Relies on C11 thread-local storage and atomics, and on
 * support/os/Thread.c for the kernel's thread ids.
 *
 * The holder knows it holds the runtime through a thread-local flag, so
 * the check on every callback is one load with no sharing; other threads
 * learn only the holder's id, for their refusal message, through an
 * atomic written at hs_init and hs_exit.
 */
#include "OwnerThread.h"

#include <stdatomic.h>

#include "Messages.h"
#include "os/Thread.h"

static _Thread_local bool this_thread_holds_runtime = false;
static _Atomic long holder_id = 0;   /* kernel thread id; 0 = not running */

void owner_thread_claim(void)
{
    this_thread_holds_runtime = true;
    atomic_store(&holder_id, os_thread_id());
}

void owner_thread_release(void)
{
    this_thread_holds_runtime = false;
    atomic_store(&holder_id, 0);
}

bool owner_thread_is_current(void)
{
    return this_thread_holds_runtime;
}

bool owner_thread_runtime_running(void)
{
    return atomic_load(&holder_id) != 0;
}

long owner_thread_holder_id(void)
{
    return atomic_load(&holder_id);
}

long owner_thread_caller_id(void)
{
    return os_thread_id();
}

OwnerCheck owner_thread_check(const char *who)
{
    if (this_thread_holds_runtime)
        return OWNER_OK;
    long holder = owner_thread_holder_id();
    if (holder == 0) {
        rts_error("%s: the runtime is not running (call hs_init first; hs_exit stops it)", who);
        return OWNER_NOT_RUNNING;
    }
    rts_error("%s: refused: called from thread %ld, which does not hold the runtime "
              "(thread %ld does: only the thread that called hs_init may use it)",
              who, owner_thread_caller_id(), holder);
    return OWNER_OTHER_THREAD;
}
