/*
 * utils/strata-debug/DiffCmd.h -- strata-debug diff: what changed between two
 * heaps.  The whole API of DiffCmd.c.
 */
#ifndef STRATA_DEBUG_DIFF_CMD_H
#define STRATA_DEBUG_DIFF_CMD_H



/* strata-debug diff A B ...: its own arguments (argv[1] is "diff"). */
int diff_main(int argc, char **argv);

#endif /* STRATA_DEBUG_DIFF_CMD_H */
