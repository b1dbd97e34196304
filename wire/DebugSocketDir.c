/*
 * wire/DebugSocketDir.c -- where debug sockets are found (DebugSocketDir.h).
 */
#include "DebugSocketDir.h"

#include <stdio.h>
#include <string.h>

size_t debug_socket_dir(int which, const char *xdg_runtime_dir, unsigned uid, char *out,
                        size_t cap)
{
    int parent;
    if (which == 0) {
        if (xdg_runtime_dir == NULL || xdg_runtime_dir[0] != '/')
            return 0;
        parent = snprintf(out, cap, "%s/strata", xdg_runtime_dir);
    } else if (which == 1) {
        parent = snprintf(out, cap, "/tmp/strata-%u", uid);
    } else {
        return 0;
    }
    if (parent < 0 || (size_t)parent >= cap)
        return 0;
    int n = snprintf(out + parent, cap - (size_t)parent, "/debug");
    if (n < 0 || (size_t)n >= cap - (size_t)parent)
        return 0;
    return (size_t)parent;
}

size_t debug_socket_dir_first(const char *xdg_runtime_dir, unsigned uid, char *out, size_t cap)
{
    size_t parent = 0;
    for (int which = 0; which < DEBUG_SOCKET_DIRS && parent == 0; which++)
        parent = debug_socket_dir(which, xdg_runtime_dir, uid, out, cap);
    return parent;
}
