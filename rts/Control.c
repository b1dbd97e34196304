/*
 * rts/Control.c -- control commands from eventlog socket clients (see
 * Control.h): a queue filled on the socket thread and emptied by the
 * mutator at a safe point, the built-in namespaces, and the program's own
 * commands (strata_control_register).  Relies on the storage manager's
 * attention request (Note [The allocation limit] in sm/alloc/Storage.c) to reach
 * the mutator, on profiling/ProfHeap.c for heap-profile commands and on
 * eventlog/ for flushing.  See docs/design/eventlog.md, "Control
 * commands".
 */
#include "Control.h"

#include <stdlib.h>
#include <string.h>

#include "EventLog.h"
#include "GC.h"
#include "GrowArray.h"
#include "Messages.h"
#include "ProfHeap.h"
#include "SampledObjects.h"
#include "Storage.h"
#include "os/Thread.h"
#include "strata/Api.h"
#include "strata/Control.h"

/* Note [Control commands run on the mutator]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The socket thread decodes a client's messages, but the commands touch
 * the heap (a census, a GC, the era), the eventlog buffers and the
 * program's own state, all of which belong to the mutator.  So the socket
 * thread only appends the command to a bounded queue under queue_lock and
 * asks for attention, as the debug stub and the ticker do
 * (storage_request_attention: the next allocation enters the slow path);
 * the attention handler (rts/RtsStartup.c) runs control_serve_pending,
 * which takes the whole queue under the lock and runs the commands after
 * releasing it, in the order they arrived.  A program that stops
 * allocating runs no commands until it allocates again; nothing in sm/
 * knows about commands. */

typedef struct {
    char ns[256];
    uint8_t id;
    StrataControlHandler handler;
    void *data;
} Registration;

static OsMutex queue_lock = OS_MUTEX_INIT;
static ControlCommand pending[CONTROL_PENDING_MAX];   /* under queue_lock */
static size_t n_pending;                              /* under queue_lock */
static ControlStats counts;                           /* run/unknown: mutator;
                                                       * overflowed: queue_lock */

/* Registrations: the mutator's (strata_control_register, dispatch). */
static Registration *registry;
static size_t n_registered, registry_cap;

/* ----------------------------------------------------------------------
 * The socket thread's side
 * ---------------------------------------------------------------------- */

void control_submit(const ControlCommand *cmd)
{
    os_mutex_lock(&queue_lock);
    bool queued = n_pending < CONTROL_PENDING_MAX;
    if (queued)
        pending[n_pending++] = *cmd;
    else
        counts.overflowed++;
    os_mutex_unlock(&queue_lock);
    if (queued)
        storage_request_attention();
}

/* ----------------------------------------------------------------------
 * The mutator's side
 * ---------------------------------------------------------------------- */

static bool ns_is(const ControlCommand *cmd, const char *ns)
{
    size_t n = strlen(ns);
    return cmd->ns_len == n && memcmp(cmd->ns, ns, n) == 0;
}

static bool run_eventlog_socket(uint8_t command)
{
    switch (command) {
    case CONTROL_CMD_START_HEAP_PROFILING:
        (void)prof_heap_set_sampling(true);
        return true;
    case CONTROL_CMD_STOP_HEAP_PROFILING:
        (void)prof_heap_set_sampling(false);
        return true;
    case CONTROL_CMD_REQUEST_HEAP_CENSUS:
        (void)prof_heap_request_census();
        return true;
    default:
        return false;
    }
}

static bool run_strata(uint8_t command)
{
    switch (command) {
    case CONTROL_CMD_INCREMENT_ERA:
        (void)incrementUserEra(1);
        return true;
    case CONTROL_CMD_MAJOR_GC:
        gc_collect_forced(true);
        return true;
    case CONTROL_CMD_FLUSH_EVENTLOG:
        eventlog_flush();
        return true;
    case CONTROL_CMD_REPOST_SAMPLES:
        sampled_objects_repost();   /* a client that connected late */
        return true;
    default:
        return false;
    }
}

static const Registration *find(const char *ns, size_t ns_len, uint8_t id)
{
    for (size_t i = 0; i < n_registered; i++)
        if (registry[i].id == id && strlen(registry[i].ns) == ns_len &&
            memcmp(registry[i].ns, ns, ns_len) == 0)
            return &registry[i];
    return NULL;
}

static void run(const ControlCommand *cmd)
{
    bool known;
    if (ns_is(cmd, CONTROL_NS_EVENTLOG_SOCKET)) {
        known = run_eventlog_socket(cmd->command);
    } else if (ns_is(cmd, CONTROL_NS_STRATA)) {
        known = run_strata(cmd->command);
    } else {
        const Registration *r = find(cmd->ns, cmd->ns_len, cmd->command);
        known = r != NULL;
        if (known)
            r->handler(cmd->command, r->data);
    }
    if (known)
        counts.run++;
    else
        counts.unknown++;
}

/* One mutator thread at a time serves the queue (others, finding it
 * busy, go on: the server will see what they would have). */
static OsMutex serve_lock = OS_MUTEX_INIT;

void control_serve_pending(void)
{
    static ControlCommand batch[CONTROL_PENDING_MAX];   /* under serve_lock */
    if (!os_mutex_trylock(&serve_lock))
        return;
    os_mutex_lock(&queue_lock);
    size_t n = n_pending;
    memcpy(batch, pending, n * sizeof batch[0]);
    n_pending = 0;
    os_mutex_unlock(&queue_lock);
    for (size_t i = 0; i < n; i++)
        run(&batch[i]);
    os_mutex_unlock(&serve_lock);
}

void control_get_stats(ControlStats *out)
{
    os_mutex_lock(&queue_lock);
    *out = counts;
    os_mutex_unlock(&queue_lock);
}

void control_reset(void)
{
    os_mutex_lock(&queue_lock);
    n_pending = 0;
    memset(&counts, 0, sizeof counts);
    os_mutex_unlock(&queue_lock);
}

bool control_check(void)
{
    os_mutex_lock(&queue_lock);
    bool ok = n_pending <= CONTROL_PENDING_MAX;
    os_mutex_unlock(&queue_lock);
    if (n_registered > registry_cap || (n_registered > 0 && registry == NULL))
        return false;
    for (size_t i = 0; ok && i < n_registered; i++)
        ok = registry[i].handler != NULL && registry[i].ns[0] != '\0' &&
             find(registry[i].ns, strlen(registry[i].ns), registry[i].id) == &registry[i];
    return ok;
}

/* ----------------------------------------------------------------------
 * Registration (strata/Control.h)
 * ---------------------------------------------------------------------- */

int strata_control_register(const char *ns, uint8_t id, StrataControlHandler handler, void *data)
{
    if (ns == NULL || handler == NULL) {
        rts_error("strata_control_register: %s is NULL (id=%u)",
                  ns == NULL ? "the namespace" : "the handler", (unsigned)id);
        return -1;
    }
    size_t len = strlen(ns);
    if (len == 0 || len > 255) {
        rts_error("strata_control_register: the namespace must be 1 to 255 bytes "
                  "(bytes=%zu, id=%u)", len, (unsigned)id);
        return -1;
    }
    if (strcmp(ns, CONTROL_NS_EVENTLOG_SOCKET) == 0 || strcmp(ns, CONTROL_NS_STRATA) == 0) {
        rts_error("strata_control_register: the namespace '%s' belongs to the runtime "
                  "(id=%u); choose your own", ns, (unsigned)id);
        return -1;
    }
    Registration *r = (Registration *)find(ns, len, id);
    if (r == NULL) {
        if (GROW_ARRAY_RESERVE(registry, registry_cap, n_registered + 1) != 0) {
            rts_error("strata_control_register: out of C heap (namespace=%s, id=%u)", ns,
                      (unsigned)id);
            return -1;
        }
        r = &registry[n_registered++];
        memcpy(r->ns, ns, len + 1);
        r->id = id;
    }
    r->handler = handler;
    r->data = data;
    return 0;
}
