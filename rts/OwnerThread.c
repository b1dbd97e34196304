/*
 * rts/OwnerThread.c -- the thread that holds the runtime (see
 * OwnerThread.h).  Relies on C11 thread-local storage and atomics, and on
 * support/os/Thread.c for the kernel's thread ids.
 *
 * Since capabilities, "holds the runtime" means "holds a capability"
 * (sm/heap/Capability.h: one thread-local load); the id of the thread that
 * called hs_init is kept for messages and for "is the runtime running".
 */
#include "OwnerThread.h"

#include <stdatomic.h>

#include "Capability.h"
#include "Messages.h"
#include "os/Thread.h"

static _Atomic long holder_id = 0;   /* hs_init's thread; 0 = not running */

void owner_thread_claim(void)
{
    atomic_store(&holder_id, os_thread_id());
}

void owner_thread_release(void)
{
    atomic_store(&holder_id, 0);
}

bool owner_thread_is_current(void)
{
    return capability_mine() != NULL;
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
    if (capability_mine() != NULL)
        return OWNER_OK;
    long holder = owner_thread_holder_id();
    if (holder == 0) {
        rts_error("%s: the runtime is not running (call hs_init first; hs_exit stops it)", who);
        return OWNER_NOT_RUNNING;
    }
    rts_error("%s: refused: called from thread %ld, which holds no capability (call "
              "rts_lock first, or rts_resume after rts_suspend; hs_init ran on thread %ld)",
              who, owner_thread_caller_id(), holder);
    return OWNER_OTHER_THREAD;
}
