/*
 * bench/workloads/binary-trees/boehm.c -- binary-trees in C on the Boehm
 * conservative collector (libgc): the same algorithm, sizes and output as
 * strata.c.  Nodes come from GC_MALLOC and are never freed; the collector
 * reclaims the short-lived trees.  Nil is NULL.
 *
 *     cc -O2 boehm.c -lgc && ./a.out 21
 */
#include <stdio.h>
#include <stdlib.h>

#include <gc.h>

typedef struct Node {
    struct Node *left, *right;  /* NULL for Nil */
} Node;

#define MIN_DEPTH 4

static Node *node(Node *left, Node *right)
{
    Node *n = GC_MALLOC(sizeof *n);
    if (n == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    n->left = left;
    n->right = right;
    return n;
}

static Node *make(int depth)
{
    if (depth == 0)
        return node(NULL, NULL);
    Node *left = make(depth - 1);
    Node *right = make(depth - 1);
    return node(left, right);
}

static long check(const Node *t)
{
    if (t == NULL)
        return 0;
    return 1 + check(t->left) + check(t->right);
}

int main(int argc, char **argv)
{
    GC_INIT();
    int n = argc > 1 ? atoi(argv[1]) : 10;
    if (argc > 2 || n < 0 || n > 30) {
        fprintf(stderr, "usage: %s DEPTH (0..30)\n", argv[0]);
        return 2;
    }
    int max_depth = n > MIN_DEPTH + 2 ? n : MIN_DEPTH + 2;
    int stretch = max_depth + 1;
    printf("stretch tree of depth %d\t check: %ld\n", stretch, check(make(stretch)));

    Node *long_lived = make(max_depth);
    for (int d = MIN_DEPTH; d <= max_depth; d += 2) {
        long iterations = 1L << (max_depth - d + MIN_DEPTH);
        long sum = 0;
        for (long i = 0; i < iterations; i++)
            sum += check(make(d));
        printf("%ld\t trees of depth %d\t check: %ld\n", iterations, d, sum);
    }
    printf("long lived tree of depth %d\t check: %ld\n", max_depth, check(long_lived));
    return 0;
}
