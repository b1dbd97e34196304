/*
 * utils/strata-debug/FileCmds.h -- gml and snapshot.  The whole API of
 * FileCmds.c.
 */
#ifndef STRATA_DEBUG_FILE_CMDS_H
#define STRATA_DEBUG_FILE_CMDS_H

#include "CmdOptions.h"

CommandFn cmd_gml, cmd_snapshot;

#endif /* STRATA_DEBUG_FILE_CMDS_H */
