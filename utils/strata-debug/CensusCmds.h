/*
 * utils/strata-debug/CensusCmds.h -- census, thunks, duplicates and dominators.
 * The whole API of CensusCmds.c.
 */
#ifndef STRATA_DEBUG_CENSUS_CMDS_H
#define STRATA_DEBUG_CENSUS_CMDS_H

#include "CmdOptions.h"

CommandFn cmd_census, cmd_thunks, cmd_duplicates, cmd_dominators;

#endif /* STRATA_DEBUG_CENSUS_CMDS_H */
