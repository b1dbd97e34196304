/*
 * utils/strata-debug/QueryCmds.h -- retainers and boundary, and the query both
 * take.  The whole API of QueryCmds.c.
 */
#ifndef STRATA_DEBUG_QUERY_CMDS_H
#define STRATA_DEBUG_QUERY_CMDS_H

#include "CmdOptions.h"
#include "Json.h"

CommandFn cmd_retainers, cmd_boundary;
/* Fills q from --constructor/--info/--type (DBG_MATCH_ANY if none) and
 * --era; returns non-zero after an error message naming cmd. */
int query_from_opts(const Opts *o, const char *cmd, DbgQuery *q);
/* The query as given: {"constructor": ...} or info, type; "eras". */
void json_query(Json *j, const Opts *o);

#endif /* STRATA_DEBUG_QUERY_CMDS_H */
