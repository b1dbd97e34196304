/*
 * utils/strata-debug/tui/TuiTree.c -- the tree model of TuiTree.h: lazy
 * expansion, flattening to visible lines, the cursor, and line layout.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"
#include "TextOut.h"
#include "TuiTree.h"

/* ----------------------------------------------------------------------
 * Nodes
 * ---------------------------------------------------------------------- */

TuiNode *tui_node_new(int kind, const char *text)
{
    TuiNode *n = calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    n->kind = kind;
    n->text = strdup(text != NULL ? text : "");
    if (n->text == NULL) {
        free(n);
        return NULL;
    }
    return n;
}

TuiNode *tui_node_newf(int kind, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tui_node_new(kind, buf);
}

int tui_node_add(TuiNode *parent, TuiNode *child)
{
    if (child == NULL)
        return -1;
    if (GROW_ARRAY_RESERVE_MIN(parent->kids, parent->cap_kids, parent->n_kids + 1, 8) != 0) {
        tui_node_free(child);
        return -1;
    }
    child->parent = parent;
    parent->kids[parent->n_kids++] = child;
    return 0;
}

/* Frees top's descendants, top kept.  Without recursion: a retainer path
 * may be 100,000 nodes deep (test_tui_tree_deep_chain_flattens), more
 * frames than the C stack holds under AddressSanitizer at -O1.  Each child
 * is taken off its parent's list before it is freed, and its parent found
 * again through its parent pointer (set by tui_node_add, which alone adds
 * children). */
static void free_kids(TuiNode *top)
{
    TuiNode *n = top;
    for (;;) {
        if (n->n_kids > 0) {
            n = n->kids[--n->n_kids];
            continue;
        }
        free(n->kids);
        n->kids = NULL;
        n->cap_kids = 0;
        if (n == top)
            return;
        TuiNode *up = n->parent;
        free(n->text);
        free(n);
        n = up;
    }
}

void tui_node_free(TuiNode *n)
{
    if (n == NULL)
        return;
    free_kids(n);
    free(n->text);
    free(n);
}

int tui_node_set_text(TuiNode *n, const char *text)
{
    char *t = strdup(text);
    if (t == NULL)
        return -1;
    free(n->text);
    n->text = t;
    return 0;
}

/* ----------------------------------------------------------------------
 * The tree
 * ---------------------------------------------------------------------- */

int tui_tree_init(TuiTree *t, TuiLoadFn load, void *env)
{
    memset(t, 0, sizeof *t);
    t->root = tui_node_new(0, "");
    if (t->root == NULL)
        return -1;
    t->root->expanded = t->root->loaded = true;
    t->load = load;
    t->env = env;
    return 0;
}

void tui_tree_free(TuiTree *t)
{
    tui_node_free(t->root);
    free(t->lines);
    memset(t, 0, sizeof *t);
}

void tui_tree_clear(TuiTree *t)
{
    free_kids(t->root);
    t->n_lines = 0;
    t->cursor = t->top = 0;
}

int tui_tree_expand(TuiTree *t, TuiNode *n)
{
    if (!n->expandable)
        return 0;
    n->expanded = true;
    if (n->loaded || t->load == NULL)
        return 0;
    n->loaded = true;
    return t->load(n, t->env);
}

void tui_tree_collapse(TuiTree *t, TuiNode *n)
{
    (void)t;
    n->expanded = false;
}

int tui_tree_toggle(TuiTree *t, TuiNode *n)
{
    if (n->expanded) {
        tui_tree_collapse(t, n);
        return 0;
    }
    return tui_tree_expand(t, n);
}

static int push_line(TuiTree *t, TuiNode *n, int depth)
{
    if (GROW_ARRAY_RESERVE_MIN(t->lines, t->cap_lines, t->n_lines + 1, 64) != 0)
        return -1;
    t->lines[t->n_lines++] = (TuiLine){n, depth};
    return 0;
}

/* Depth first with an explicit stack (a retainer path can be thousands
 * of nodes deep): each entry is a node whose kids are being listed and the
 * index of the next one. */
typedef struct {
    const TuiNode *node;
    size_t next;
} Frame;

static int flatten(TuiTree *t)
{
    t->n_lines = 0;
    size_t cap = 64, depth = 0;
    Frame *stack = malloc(cap * sizeof *stack);
    if (stack == NULL)
        return -1;
    stack[0] = (Frame){t->root, 0};
    for (;;) {
        Frame *f = &stack[depth];
        if (f->next == f->node->n_kids) {
            if (depth == 0)
                break;
            depth--;
            continue;
        }
        TuiNode *n = f->node->kids[f->next++];
        if (push_line(t, n, (int)depth) != 0)
            goto oom;
        if (n->expanded && n->n_kids > 0) {
            if (GROW_ARRAY_RESERVE(stack, cap, depth + 2) != 0)
                goto oom;
            stack[++depth] = (Frame){n, 0};
        }
    }
    free(stack);
    return 0;
oom:
    free(stack);
    return -1;
}

int tui_tree_layout(TuiTree *t)
{
    TuiNode *cur = t->cursor < t->n_lines ? t->lines[t->cursor].node : NULL;
    if (flatten(t) != 0)
        return -1;
    t->cursor = 0;
    /* The old node, or its nearest ancestor that is still visible. */
    for (TuiNode *n = cur; n != NULL && n != t->root; n = n->parent)
        if (tui_tree_select(t, n))
            break;
    if (t->top >= t->n_lines)
        t->top = t->n_lines ? t->n_lines - 1 : 0;
    return 0;
}

TuiNode *tui_tree_current(const TuiTree *t)
{
    return t->cursor < t->n_lines ? t->lines[t->cursor].node : NULL;
}

void tui_tree_move(TuiTree *t, long delta)
{
    if (t->n_lines == 0)
        return;
    long c = (long)t->cursor + delta;
    if (c < 0)
        c = 0;
    if (c >= (long)t->n_lines)
        c = (long)t->n_lines - 1;
    t->cursor = (size_t)c;
}

void tui_tree_home(TuiTree *t)
{
    t->cursor = 0;
}

void tui_tree_end(TuiTree *t)
{
    t->cursor = t->n_lines ? t->n_lines - 1 : 0;
}

void tui_tree_left(TuiTree *t)
{
    TuiNode *n = tui_tree_current(t);
    if (n == NULL)
        return;
    if (n->expanded && n->expandable) {
        tui_tree_collapse(t, n);
        tui_tree_layout(t);
        return;
    }
    if (n->parent != NULL && n->parent != t->root)
        tui_tree_select(t, n->parent);
}

bool tui_tree_select(TuiTree *t, const TuiNode *n)
{
    for (size_t i = 0; i < t->n_lines; i++)
        if (t->lines[i].node == n) {
            t->cursor = i;
            return true;
        }
    return false;
}

void tui_tree_scroll(TuiTree *t, size_t height)
{
    if (height == 0)
        return;
    if (t->cursor < t->top)
        t->top = t->cursor;
    if (t->cursor >= t->top + height)
        t->top = t->cursor - height + 1;
    /* No empty space below the last line when the lines would fill it. */
    if (t->n_lines > height && t->top > t->n_lines - height)
        t->top = t->n_lines - height;
    if (t->n_lines <= height)
        t->top = 0;
}

/* ----------------------------------------------------------------------
 * Layout
 * ---------------------------------------------------------------------- */

/* How text is written: for a UTF-8 terminal, or as ASCII for any other
 * (tui_text_set_utf8). */
static TextStyle text_style = TEXT_TERMINAL;

void tui_text_set_utf8(bool utf8)
{
    text_style = utf8 ? TEXT_TERMINAL : TEXT_ASCII;
}

/* Appends s to buf, at most width - *cols columns, as text for a terminal
 * (Note [One way to write a string] in wire/TextOut.c): a character
 * takes one column, and a control character or an invalid byte is shown
 * as \xNN, four columns, written whole or not at all. */
static size_t put_text(char *buf, size_t at, const char *s, size_t width, size_t *cols)
{
    size_t len = strlen(s), i = 0;
    while (i < len && *cols < width) {
        char one[TEXT_CHAR_MAX];
        size_t n = text_escape_char(s, len, &i, text_style, one), c = 0;
        for (size_t k = 0; k < n; k++)
            c += ((unsigned char)one[k] & 0xC0) != 0x80;   /* one per character */
        if (*cols + c > width)
            break;
        memcpy(buf + at, one, n);
        at += n;
        *cols += c;
    }
    return at;
}

size_t tui_line_format(const TuiLine *l, size_t width, bool pad, char *buf)
{
    size_t at = 0, cols = 0;
    for (int d = 0; d < l->depth && cols < width; d++)
        at = put_text(buf, at, "  ", width, &cols);
    const TuiNode *n = l->node;
    const char *marker = !n->expandable ? "  " : n->expanded ? "- " : "+ ";
    at = put_text(buf, at, marker, width, &cols);
    at = put_text(buf, at, n->text, width, &cols);
    while (pad && cols < width) {
        buf[at++] = ' ';
        cols++;
    }
    buf[at] = '\0';
    return at;
}

size_t tui_text_fit(const char *text, size_t width, char *buf)
{
    size_t cols = 0, at = put_text(buf, 0, text, width, &cols);
    buf[at] = '\0';
    return at;
}

size_t tui_wrap(const char *text, size_t width, const char **next)
{
    while (*text == ' ')
        text++;
    size_t len = strlen(text);
    if (len == 0 || width == 0) {
        *next = text + len;
        return 0;
    }
    /* Columns are code points: find the byte where width columns end. */
    size_t end = 0, cols = 0;
    while (end < len && cols < width) {
        end++;
        while (end < len && ((unsigned char)text[end] & 0xC0) == 0x80)
            end++;
        cols++;
    }
    size_t cut = end;
    if (end < len && text[end] != ' ') {
        size_t sp = end;
        while (sp > 0 && text[sp] != ' ')
            sp--;
        if (sp > 0)
            cut = sp;
    }
    *next = text + cut;
    while (**next == ' ')
        (*next)++;
    while (cut > 0 && text[cut - 1] == ' ')
        cut--;
    return cut;
}
