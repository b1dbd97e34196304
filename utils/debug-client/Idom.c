/*
 * utils/debug-client/Idom.c -- immediate dominators of a graph in
 * compressed sparse rows, by Cooper, Harvey and Kennedy (Note [Dominators
 * by Cooper, Harvey and Kennedy]): the algorithm the heap's dominator
 * tree (Dominators.c), the boundary's holder tree (BoundaryWithoutTree.c) and
 * the diff's new objects run.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "Idom.h"
#include "strata/Debug.h"

/* Note [Dominators by Cooper, Harvey and Kennedy]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Node d dominates v when every path from the root to v passes through d;
 * v's immediate dominator is the nearest such d.  If v's immediate
 * dominator died, so would v, which is why the sum of the sizes in v's
 * dominator subtree is what v *retains*.  We use the iterative algorithm of
 * Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001):
 * number the nodes in depth-first postorder, then, in reverse postorder,
 * set each node's dominator to the meeting point of its already-processed
 * predecessors' dominators, until nothing changes.  On heap graphs (mostly
 * trees and lists, few back edges) it settles in two or three passes and
 * needs only the postorder numbers and the predecessor lists.  Rejected:
 * Lengauer-Tarjan (near-linear in the worst case, but four more arrays per
 * node and much harder to check); a reachability test per object (the
 * brute force of test_debug_dominators_match_brute_force, quadratic). */

/* Walks up from a and b to their nearest common dominator. */
static uint32_t intersect(const uint32_t *idom, const uint32_t *po, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (po[a] < po[b])
            a = idom[a];
        while (po[b] < po[a])
            b = idom[b];
    }
    return a;
}

/* Note [Stamped intersections]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A node with many predecessors (a static every leaf of a tree points
 * at, a shared constructor) costs one intersect per predecessor per
 * pass, each walking up the tree from the predecessor to the meeting
 * point: tens of steps for each of millions of leaves, most of the
 * dominators' time on the 1 GB heap of docs/design/debugger.md.  While
 * one node's predecessors are folded, every node the walks pass is
 * stamped with a number of that fold: such a node lies below the
 * meeting point found so far (walks only go up to it, and the meeting
 * point only moves up), so a later walk that reaches a stamped node can
 * stop there with the current meeting point as the answer.  Each fold
 * then walks each tree node once at most.  Folds of a few predecessors
 * use the plain walk. */
#define STAMP_MIN_PREDS 8

static uint32_t intersect_stamped(const uint32_t *idom, const uint32_t *po, uint32_t *stamp,
                                  uint32_t token, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (po[a] < po[b]) {
            if (stamp[a] == token)
                return b;   /* a is below b already */
            stamp[a] = token;
            a = idom[a];
        }
        while (po[b] < po[a]) {
            stamp[b] = token;
            b = idom[b];
        }
    }
    return a;
}

/* Note [Dominator memory]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * On a 1 GB heap of 33.5 M objects every byte per object is 33.5 MB, and
 * the first version of the tree took about 85 bytes an object on top of
 * the traversal (3.6 GB for boundary, docs/design/debugger.md).  Now:
 * node numbers and edge offsets are 32 bits (a graph of 2^32 - 1 edges
 * or more is refused with an error: a heap of 32 GB of pointers); the
 * successors are one CSR pair, freed as soon as the predecessor lists
 * (built from them, reachable nodes only) exist; the postorder is written
 * straight into the reverse-postorder array the tree keeps; a node's
 * address is not stored (dbg_reach_addr finds it from its rank, and the
 * passes over every node walk the marks in rank order); a node's own
 * bytes are the initial value of its retained bytes; and the children
 * lists that dom_topmost walks are built there and freed after.  What the
 * tree keeps is 20 bytes a node: idom, rpo, retained bytes (64 bits) and
 * retained objects (32 bits, at most the node count); 8 without the sums
 * (dbg_dominators_opts), which the boundary does not read: it sums its
 * own old-era bytes. */

/* Depth-first postorder from node 0 of the CSR graph off/succ, with an
 * explicit stack: po[v] is v's number (NONE: unreachable), order[i] the
 * node numbered i, *n_order how many.  0, or -1 when out of C heap. */
static int postorder(uint32_t n, const uint32_t *off, const uint32_t *succ, uint32_t *po,
                     uint32_t *order, uint32_t *n_order)
{
    uint32_t *stack = malloc((size_t)(n ? n : 1) * sizeof *stack);
    uint32_t *cursor = malloc((size_t)(n ? n : 1) * sizeof *cursor);
    if (stack == NULL || cursor == NULL) {
        free(stack);
        free(cursor);
        return -1;
    }
    uint32_t sp = 0;
    *n_order = 0;
    stack[sp++] = 0;
    cursor[0] = off[0];
    po[0] = NONE - 1;   /* on the stack */
    while (sp > 0) {
        uint32_t v = stack[sp - 1];
        if (cursor[v] < off[v + 1]) {
            uint32_t w = succ[cursor[v]++];
            if (po[w] == NONE) {
                po[w] = NONE - 1;
                cursor[w] = off[w];
                stack[sp++] = w;
            }
            continue;
        }
        sp--;
        po[v] = *n_order;
        order[(*n_order)++] = v;
    }
    free(stack);
    free(cursor);
    return 0;
}

/* Predecessor lists of the reachable nodes (po[v] != NONE) into
 * *pred_offp (n + 1 entries: v's list starts at [v], the total is at
 * [n]) and *predp: counts, then each list filled from its end, sources
 * in descending order so that a list reads in ascending order.  0, or -1
 * when out of C heap. */
static int predecessors(uint32_t n, const uint32_t *off, const uint32_t *succ,
                        const uint32_t *po, uint32_t **pred_offp, uint32_t **predp)
{
    uint32_t *pred_off = calloc((size_t)n + 1, sizeof *pred_off);
    *pred_offp = pred_off;
    if (pred_off == NULL)
        return -1;
    for (uint32_t v = 0; v < n; v++)
        if (po[v] != NONE)
            for (uint32_t e = off[v]; e < off[v + 1]; e++)
                pred_off[succ[e]]++;
    for (uint32_t v = 1; v <= n; v++)
        pred_off[v] += pred_off[v - 1];   /* pred_off[v]: end of v's list */
    uint32_t *pred = malloc((size_t)(pred_off[n] ? pred_off[n] : 1) * sizeof *pred);
    *predp = pred;
    if (pred == NULL)
        return -1;
    for (uint32_t v = n; v-- > 0;)
        if (po[v] != NONE)
            for (uint32_t e = off[v + 1]; e-- > off[v];)
                pred[--pred_off[succ[e]]] = v;
    /* pred_off[v] is now the start of v's list, pred_off[n] the total. */
    return 0;
}

/* The iteration of Note [Dominators by Cooper, Harvey and Kennedy]: in
 * reverse postorder, each node's dominator becomes the meeting point of
 * its processed predecessors', until nothing changes.  idom[0] is set.
 * 0, or -1 when out of C heap. */
static int fold_dominators(uint32_t n, const uint32_t *order, uint32_t n_order,
                           const uint32_t *po, const uint32_t *pred_off, const uint32_t *pred,
                           uint32_t *idom)
{
    idom[0] = 0;
    uint32_t *stamp = calloc((size_t)n, sizeof *stamp), token = 0;
    if (stamp == NULL)
        return -1;
    /* A node with one predecessor has it as its DFS parent, set in the
     * first pass and final: later passes skip it. */
    for (bool changed = true, first = true; changed; first = false) {
        changed = false;
        for (uint32_t k = n_order - 1; k-- > 0;) {   /* reverse postorder, root skipped */
            uint32_t v = order[k], best = NONE;
            uint32_t n_pred = pred_off[v + 1] - pred_off[v];
            if (!first && n_pred == 1)
                continue;
            bool stamped = n_pred >= STAMP_MIN_PREDS;
            if (stamped && ++token == 0) {   /* wrapped: old stamps would match */
                memset(stamp, 0, (size_t)n * sizeof *stamp);
                token = 1;
            }
            for (uint32_t e = pred_off[v]; e < pred_off[v + 1]; e++) {
                uint32_t p = pred[e];
                if (idom[p] == NONE)
                    continue;   /* not processed yet */
                best = best == NONE ? p
                       : stamped ? intersect_stamped(idom, po, stamp, token, p, best)
                                 : intersect(idom, po, p, best);
            }
            if (best != idom[v]) {
                idom[v] = best;
                changed = true;
            }
        }
    }
    free(stamp);
    return 0;
}

int dbg_graph_idom_csr(uint32_t n, uint32_t **offp, uint32_t **succp, uint32_t *idom,
                       uint32_t *rpo, uint32_t *n_rpo)
{
    uint32_t *po = malloc((size_t)(n ? n : 1) * sizeof *po);      /* postorder number */
    uint32_t *order = rpo;   /* postorder, reversed in place at the end */
    uint32_t *pred_off = NULL, *pred = NULL, n_order;
    int st = -1;
    if (po == NULL)
        goto out;
    for (uint32_t v = 0; v < n; v++) {
        idom[v] = NONE;
        po[v] = NONE;
    }
    *n_rpo = 0;
    if (n == 0) {
        st = 0;
        goto out;
    }
    if (postorder(n, *offp, *succp, po, order, &n_order) != 0 ||
        predecessors(n, *offp, *succp, po, &pred_off, &pred) != 0)
        goto out;
    free(*offp);
    free(*succp);
    *offp = NULL;
    *succp = NULL;
    if (fold_dominators(n, order, n_order, po, pred_off, pred, idom) != 0)
        goto out;
    for (uint32_t i = 0, j = n_order - 1; i < j; i++, j--) {
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    *n_rpo = n_order;
    st = 0;
out:
    free(po);
    free(pred_off);
    free(pred);
    return st;
}

int dbg_graph_idom(uint32_t n, const uint64_t *off, const uint32_t *succ, uint32_t *idom)
{
    if (off[n] >= NONE)
        return -1;
    uint32_t *off32 = malloc(((size_t)n + 1) * sizeof *off32);
    uint32_t *succ32 = malloc((size_t)(off[n] ? off[n] : 1) * sizeof *succ32);
    uint32_t *rpo = malloc((size_t)(n ? n : 1) * sizeof *rpo), n_rpo;
    int st = -1;
    if (off32 != NULL && succ32 != NULL && rpo != NULL) {
        for (uint32_t v = 0; v <= n; v++)
            off32[v] = (uint32_t)off[v];
        memcpy(succ32, succ, (size_t)off[n] * sizeof *succ32);
        st = dbg_graph_idom_csr(n, &off32, &succ32, idom, rpo, &n_rpo);
    }
    free(off32);
    free(succ32);
    free(rpo);
    return st;
}
