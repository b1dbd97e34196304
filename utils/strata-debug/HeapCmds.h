/*
 * utils/strata-debug/HeapCmds.h -- fragmentation, weaks and roots.  The whole
 * API of HeapCmds.c.
 */
#ifndef STRATA_DEBUG_HEAP_CMDS_H
#define STRATA_DEBUG_HEAP_CMDS_H

#include "CmdOptions.h"

CommandFn cmd_fragmentation, cmd_weaks, cmd_roots;

#endif /* STRATA_DEBUG_HEAP_CMDS_H */
