/*
 * utils/strata-debug/tui/TuiTree.h -- the terminal UI's tree model: nodes
 * that expand lazily, the visible lines they flatten to, a cursor and a
 * scroll position, and how one line is laid out.  Pure: no terminal and
 * no heap; whoever builds a tree gives it a loader that makes a node's
 * children on its first expansion (TuiHeap.c for the heap's trees).
 * See docs/design/tui.md.
 */
#ifndef STRATA_TUITREE_H
#define STRATA_TUITREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct TuiNode TuiNode;
struct TuiNode {
    int kind;                    /* the builder's own tag (TuiHeap.h) */
    uint64_t addr;               /* a closure's address, or 0 */
    uint64_t aux;                /* the builder's own datum (root index, ...) */
    bool has_era;                /* the row is coloured by era */
    uint64_t era;
    bool boundary;               /* the row holds an object of an older era (an
                                  * era-boundary edge): drawn bold and reversed */
    char *text;                  /* the label, owned */
    bool expandable;
    bool expanded;
    bool loaded;                 /* children made (the loader ran) */
    TuiNode *parent;
    TuiNode **kids;
    size_t n_kids, cap_kids;
};

/* Makes the children of n (with tui_node_add); returns -1 on failure,
 * having added a node that says why if it could. */
typedef int (*TuiLoadFn)(TuiNode *n, void *env);

/* One visible line: a node at a depth (0 = a child of the hidden root). */
typedef struct {
    TuiNode *node;
    int depth;
} TuiLine;

typedef struct {
    TuiNode *root;               /* hidden; its children are the top lines */
    TuiLoadFn load;
    void *env;
    TuiLine *lines;              /* the visible lines, after tui_tree_layout */
    size_t n_lines, cap_lines;
    size_t cursor;               /* index into lines */
    size_t top;                  /* first line shown */
} TuiTree;

/* A node with a copy of text (NULL on out of memory). */
TuiNode *tui_node_new(int kind, const char *text);
/* A node with printf-style text. */
TuiNode *tui_node_newf(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends child to parent; -1 (child freed) on out of memory. */
int tui_node_add(TuiNode *parent, TuiNode *child);
void tui_node_free(TuiNode *n);
/* Replaces the label. */
int tui_node_set_text(TuiNode *n, const char *text);

/* A tree over a fresh hidden root; load may be NULL (no lazy children). */
int tui_tree_init(TuiTree *t, TuiLoadFn load, void *env);
void tui_tree_free(TuiTree *t);
/* Drops every node below the root (a new search, a new pause). */
void tui_tree_clear(TuiTree *t);

/* Expanding runs the loader once; returns -1 if it failed (the node is
 * still expanded so that the message it added shows). */
int tui_tree_expand(TuiTree *t, TuiNode *n);
void tui_tree_collapse(TuiTree *t, TuiNode *n);
int tui_tree_toggle(TuiTree *t, TuiNode *n);

/* Recomputes the visible lines; keeps the cursor on the same node when it
 * is still visible, else on its nearest visible ancestor. */
int tui_tree_layout(TuiTree *t);
TuiNode *tui_tree_current(const TuiTree *t);
/* Moves the cursor by delta lines (clamped). */
void tui_tree_move(TuiTree *t, long delta);
void tui_tree_home(TuiTree *t);
void tui_tree_end(TuiTree *t);
/* Left: collapse the current node if expanded, else go to its parent. */
void tui_tree_left(TuiTree *t);
/* Puts the cursor on n if it is visible. */
bool tui_tree_select(TuiTree *t, const TuiNode *n);
/* Scrolls so that the cursor is among the height lines shown from top. */
void tui_tree_scroll(TuiTree *t, size_t height);

/* Lays out one line into buf: two spaces per depth, "+ " for a closed
 * node that can expand, "- " for an open one, "  " for a leaf, then the
 * text, cut at width columns (a column per code point; never inside a
 * UTF-8 sequence or a \xNN) and padded with spaces to width when pad.
 * Control characters and invalid bytes are shown as \xNN (Note [One way
 * to write a string] in wire/TextOut.c).  buf holds TUI_LINE_BYTES(width)
 * bytes.  Returns the bytes written (before the NUL). */
#define TUI_LINE_BYTES(width) (4 * (size_t)(width) + 1)
size_t tui_line_format(const TuiLine *l, size_t width, bool pad, char *buf);
/* Whether the terminal takes UTF-8 (the default); if not, every byte of
 * a non-ASCII character is written as \xNN too (TEXT_ASCII). */
void tui_text_set_utf8(bool utf8);
/* The same cut for any text: at most width columns into buf (which holds
 * TUI_LINE_BYTES(width) bytes), written as tui_line_format writes. */
size_t tui_text_fit(const char *text, size_t width, char *buf);
/* Word wrap: the bytes of text that go on a line of width columns (cut at
 * the last space that fits, or at width when a word is longer); *next is
 * where the following line starts (spaces skipped).  0 at the end. */
size_t tui_wrap(const char *text, size_t width, const char **next);
#endif /* STRATA_TUITREE_H */
