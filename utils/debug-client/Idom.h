/*
 * utils/debug-client/Idom.h -- immediate dominators of a graph in
 * compressed sparse rows (Note [Dominators by Cooper, Harvey and
 * Kennedy] in Idom.c).  The whole API of Idom.c.
 */
#ifndef STRATA_DEBUG_IDOM_H
#define STRATA_DEBUG_IDOM_H

#include <stdint.h>

/* No node: an unreachable node's idom, an empty slot. */
#define NONE UINT32_MAX

/* Immediate dominators of a graph of n nodes in CSR form: node v's
 * successors are succ[off[v] .. off[v + 1]), node 0 is the root.  idom[v]
 * is set for every node reachable from 0 (idom[0] = 0) and is UINT32_MAX
 * for the others.  -1 on out of memory.  See Note [Dominators by Cooper,
 * Harvey and Kennedy] in Idom.c. */
int dbg_graph_idom(uint32_t n, const uint64_t *off, const uint32_t *succ, uint32_t *idom);

/* idom as dbg_graph_idom for the CSR graph *offp, *succp, which it frees
 * (and NULLs) once the predecessor lists are built.  rpo (n entries) gets
 * the reachable nodes in reverse postorder, *n_rpo how many. */
int dbg_graph_idom_csr(uint32_t n, uint32_t **offp, uint32_t **succp, uint32_t *idom,
                       uint32_t *rpo, uint32_t *n_rpo);

#endif /* STRATA_DEBUG_IDOM_H */
