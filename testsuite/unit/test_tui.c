/*
 * testsuite/unit/test_tui.c -- the terminal UI's pure logic, without a
 * terminal or a heap: the era palette and legend, the tree model (lazy
 * expansion, collapse, the visible lines, the cursor, scrolling), line
 * layout, the search line, and key bindings and the prompt.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "TuiInput.h"
#include "TuiPalette.h"
#include "TuiQuery.h"
#include "TuiTree.h"
#include "strata/ClosureTypes.h"

/* ----------------------------------------------------------------------
 * The era palette
 * ---------------------------------------------------------------------- */

static void test_tui_palette_is_stable_by_era(void **state)
{
    (void)state;
    assert_int_equal(tui_era_slot(0), 0);
    for (uint64_t e = 1; e < 100; e++) {
        int s = tui_era_slot(e);
        assert_true(s >= 1 && s < TUI_ERA_SLOTS);
        assert_int_equal(s, tui_era_slot(e + 8));       /* a cycle of 8 */
        assert_int_not_equal(s, tui_era_slot(e + 1));   /* neighbours differ */
        assert_int_not_equal(tui_slot_color256(s), tui_slot_color256(tui_era_slot(e + 1)));
    }
    /* The same colours as `strata-debug retainers --color` (era % 8). */
    static const int cli[8] = {153, 187, 223, 181, 151, 189, 229, 195};
    for (uint64_t e = 1; e < 20; e++)
        assert_int_equal(tui_slot_color256(tui_era_slot(e)), cli[e % 8]);
    assert_int_equal(tui_slot_color256(0), 252);
}

static void test_tui_palette_8_colours_stay_readable(void **state)
{
    (void)state;
    for (int s = 0; s < TUI_ERA_SLOTS; s++) {
        bool black;
        int c = tui_slot_color8(s, &black);
        assert_true(c >= 0 && c <= 7);
        assert_int_not_equal(c, 0);                     /* never black on black */
        if (s > 0)
            assert_int_not_equal(c, 7);                 /* white is era 0's */
        if (c == 4 || c == 1)                           /* blue, red: dark */
            assert_false(black);
    }
    /* Out of range slots fall back to era 0's colour. */
    bool black;
    assert_int_equal(tui_slot_color8(99, &black), 7);
    assert_int_equal(tui_slot_color256(-1), 252);
}

static void test_tui_legend_distinct_sorted_newest_kept(void **state)
{
    (void)state;
    uint64_t eras[] = {5, 3, 5, 0, 9, 3, 7};
    uint64_t out[8];
    size_t n = tui_legend_eras(eras, 7, out, 8);
    assert_int_equal(n, 5);
    uint64_t want[] = {0, 3, 5, 7, 9};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(out[i], want[i]);
    n = tui_legend_eras(eras, 7, out, 2);               /* the newest two */
    assert_int_equal(n, 2);
    assert_int_equal(out[0], 7);
    assert_int_equal(out[1], 9);
    assert_int_equal(tui_legend_eras(eras, 0, out, 8), 0);
    assert_int_equal(tui_legend_eras(eras, 7, out, 0), 0);
}

/* ----------------------------------------------------------------------
 * The tree model
 * ---------------------------------------------------------------------- */

typedef struct {
    int loads;
    bool fail;
} Loader;

/* Gives every node three children "<text>.0" .. "<text>.2", expandable. */
static int load_three(TuiNode *n, void *env)
{
    Loader *l = env;
    l->loads++;
    if (l->fail) {
        tui_node_add(n, tui_node_new(1, "<could not load>"));
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        TuiNode *k = tui_node_newf(1, "%s.%d", n->text, i);
        assert_non_null(k);
        k->expandable = true;
        assert_int_equal(tui_node_add(n, k), 0);
    }
    return 0;
}

static TuiTree make_tree(Loader *l, int tops)
{
    TuiTree t;
    assert_int_equal(tui_tree_init(&t, load_three, l), 0);
    for (int i = 0; i < tops; i++) {
        TuiNode *n = tui_node_newf(1, "%d", i);
        n->expandable = true;
        assert_int_equal(tui_node_add(t.root, n), 0);
    }
    assert_int_equal(tui_tree_layout(&t), 0);
    return t;
}

static const char *line_text(const TuiTree *t, size_t i)
{
    assert_true(i < t->n_lines);
    return t->lines[i].node->text;
}

/* .inv.lazy-children: children are loaded on the first expansion only. */
static void test_tui_tree_expands_lazily_once(void **state)
{
    (void)state;
    Loader l = {0};
    TuiTree t = make_tree(&l, 2);
    assert_int_equal(t.n_lines, 2);
    TuiNode *first = t.root->kids[0];
    assert_int_equal(tui_tree_expand(&t, first), 0);
    assert_int_equal(l.loads, 1);
    tui_tree_layout(&t);
    assert_int_equal(t.n_lines, 5);
    assert_string_equal(line_text(&t, 1), "0.0");
    assert_int_equal(t.lines[1].depth, 1);
    assert_string_equal(line_text(&t, 4), "1");
    assert_int_equal(t.lines[4].depth, 0);
    /* Collapse hides, expand again does not reload. */
    tui_tree_collapse(&t, first);
    tui_tree_layout(&t);
    assert_int_equal(t.n_lines, 2);
    assert_int_equal(tui_tree_toggle(&t, first), 0);
    tui_tree_layout(&t);
    assert_int_equal(t.n_lines, 5);
    assert_int_equal(l.loads, 1);
    /* A leaf does not expand. */
    TuiNode *leaf = tui_node_new(1, "leaf");
    tui_node_add(t.root, leaf);
    assert_int_equal(tui_tree_expand(&t, leaf), 0);
    assert_false(leaf->expanded);
    assert_int_equal(l.loads, 1);
    tui_tree_free(&t);
}

static void test_tui_tree_failed_load_shows_its_message(void **state)
{
    (void)state;
    Loader l = {.fail = true};
    TuiTree t = make_tree(&l, 1);
    assert_int_equal(tui_tree_expand(&t, t.root->kids[0]), -1);
    tui_tree_layout(&t);
    assert_int_equal(t.n_lines, 2);
    assert_string_equal(line_text(&t, 1), "<could not load>");
    tui_tree_free(&t);
}

/* .inv.cursor-follows-node */
static void test_tui_tree_cursor_follows_its_node(void **state)
{
    (void)state;
    Loader l = {0};
    TuiTree t = make_tree(&l, 3);
    TuiNode *mid = t.root->kids[1];
    tui_tree_expand(&t, mid);
    tui_tree_layout(&t);
    /* Lines: 0, 1, 1.0, 1.1, 1.2, 2; cursor on 1.1. */
    tui_tree_move(&t, 3);
    assert_string_equal(tui_tree_current(&t)->text, "1.1");
    /* Expanding something above keeps the cursor on 1.1. */
    tui_tree_expand(&t, t.root->kids[0]);
    tui_tree_layout(&t);
    assert_string_equal(tui_tree_current(&t)->text, "1.1");
    assert_int_equal(t.cursor, 6);
    /* Collapsing its parent moves it to the parent. */
    tui_tree_collapse(&t, mid);
    tui_tree_layout(&t);
    assert_string_equal(tui_tree_current(&t)->text, "1");
    /* Moves clamp. */
    tui_tree_move(&t, -100);
    assert_int_equal(t.cursor, 0);
    tui_tree_move(&t, 100);
    assert_int_equal(t.cursor, t.n_lines - 1);
    tui_tree_home(&t);
    assert_int_equal(t.cursor, 0);
    tui_tree_end(&t);
    assert_string_equal(tui_tree_current(&t)->text, "2");
    tui_tree_free(&t);
}

static void test_tui_tree_left_collapses_then_goes_up(void **state)
{
    (void)state;
    Loader l = {0};
    TuiTree t = make_tree(&l, 1);
    TuiNode *top = t.root->kids[0];
    tui_tree_expand(&t, top);
    tui_tree_layout(&t);
    tui_tree_move(&t, 2);   /* on 0.1 */
    TuiNode *kid = tui_tree_current(&t);
    tui_tree_expand(&t, kid);
    tui_tree_layout(&t);
    tui_tree_left(&t);      /* collapses 0.1 */
    assert_false(kid->expanded);
    assert_ptr_equal(tui_tree_current(&t), kid);
    tui_tree_left(&t);      /* goes to 0 */
    assert_ptr_equal(tui_tree_current(&t), top);
    tui_tree_left(&t);      /* collapses 0 */
    assert_false(top->expanded);
    tui_tree_left(&t);      /* a top line has no parent to go to */
    assert_ptr_equal(tui_tree_current(&t), top);
    tui_tree_free(&t);
}

static void test_tui_tree_scroll_keeps_cursor_shown(void **state)
{
    (void)state;
    Loader l = {0};
    TuiTree t = make_tree(&l, 50);
    tui_tree_scroll(&t, 10);
    assert_int_equal(t.top, 0);
    tui_tree_move(&t, 25);
    tui_tree_scroll(&t, 10);
    assert_true(t.cursor >= t.top && t.cursor < t.top + 10);
    assert_int_equal(t.top, 16);
    tui_tree_move(&t, -20);
    tui_tree_scroll(&t, 10);
    assert_int_equal(t.top, 5);
    /* A taller screen (a resize) shows no blank rows below the last line. */
    tui_tree_end(&t);
    tui_tree_scroll(&t, 10);
    assert_int_equal(t.top, 40);
    tui_tree_scroll(&t, 30);
    assert_int_equal(t.top, 20);
    tui_tree_scroll(&t, 100);
    assert_int_equal(t.top, 0);
    tui_tree_free(&t);
}

static void test_tui_tree_deep_chain_flattens(void **state)
{
    (void)state;
    TuiTree t;
    assert_int_equal(tui_tree_init(&t, NULL, NULL), 0);
    TuiNode *p = t.root;
    for (int i = 0; i < 100000; i++) {   /* a retainer path this long */
        TuiNode *k = tui_node_newf(1, "%d", i);
        k->expandable = k->expanded = k->loaded = true;
        assert_int_equal(tui_node_add(p, k), 0);
        p = k;
    }
    assert_int_equal(tui_tree_layout(&t), 0);
    assert_int_equal(t.n_lines, 100000);
    assert_int_equal(t.lines[99999].depth, 99999);
    tui_tree_clear(&t);
    tui_tree_layout(&t);
    assert_int_equal(t.n_lines, 0);
    assert_null(tui_tree_current(&t));
    tui_tree_free(&t);
}

/* ----------------------------------------------------------------------
 * Line layout
 * ---------------------------------------------------------------------- */

static void test_tui_line_layout(void **state)
{
    (void)state;
    char buf[TUI_LINE_BYTES(40)];
    TuiNode n = {.text = (char *)"SessionEntry"};
    TuiLine l = {&n, 2};
    tui_line_format(&l, 40, false, buf);
    assert_string_equal(buf, "      SessionEntry");       /* a leaf */
    n.expandable = true;
    tui_line_format(&l, 40, false, buf);
    assert_string_equal(buf, "    + SessionEntry");
    n.expanded = true;
    tui_line_format(&l, 40, false, buf);
    assert_string_equal(buf, "    - SessionEntry");
    /* Cut at the width, padded when asked. */
    assert_int_equal(tui_line_format(&l, 10, false, buf), 10);
    assert_string_equal(buf, "    - Sess");
    tui_line_format(&l, 20, true, buf);
    assert_string_equal(buf, "    - SessionEntry  ");
    /* Indentation deeper than the width. */
    l.depth = 30;
    tui_line_format(&l, 8, false, buf);
    assert_string_equal(buf, "        ");
    /* UTF-8 is never cut inside a character; columns count characters. */
    l.depth = 0;
    n.text = (char *)"\xc3\xa9t\xc3\xa9";               /* "été" */
    tui_line_format(&l, 4, false, buf);
    assert_string_equal(buf, "- \xc3\xa9t");
    /* A label in UTF-8 is drawn as it is: "Caf\u00e9\u2192\u03bb", six
     * columns. */
    n.text = (char *)"Caf\xc3\xa9\xe2\x86\x92\xce\xbb";
    assert_int_equal(tui_line_format(&l, 8, false, buf), 12);
    assert_string_equal(buf, "- Caf\xc3\xa9\xe2\x86\x92\xce\xbb");
    /* Control characters and invalid bytes do not reach the terminal
     * (.inv.no-terminal-escape): each is \xNN, as every tool shows it
     * (Note [One way to write a string]), and never cut in half. */
    n.text = (char *)"a\tb\033c\xff";
    tui_line_format(&l, 40, false, buf);
    assert_string_equal(buf, "- a\\x09b\\x1bc\\xff");
    tui_line_format(&l, 6, false, buf);
    assert_string_equal(buf, "- a");
    /* On a terminal that is not UTF-8, non-ASCII bytes are \xNN too. */
    tui_text_set_utf8(false);
    n.text = (char *)"Caf\xc3\xa9";
    tui_line_format(&l, 40, false, buf);
    assert_string_equal(buf, "- Caf\\xc3\\xa9");
    tui_text_set_utf8(true);
    tui_text_fit("abcdef", 3, buf);
    assert_string_equal(buf, "abc");
    tui_line_format(&l, 0, true, buf);
    assert_string_equal(buf, "");
}

/* ----------------------------------------------------------------------
 * The search line
 * ---------------------------------------------------------------------- */

static void test_tui_query_parses_words(void **state)
{
    (void)state;
    TuiQuery q;
    char err[256];
    assert_true(tui_query_parse("SessionEntry era:1-2", &q, err, sizeof err));
    assert_int_equal(q.n_terms, 1);
    assert_int_equal(q.terms[0].kind, DBG_MATCH_CONSTRUCTOR);
    assert_string_equal(q.terms[0].name, "SessionEntry");
    assert_true(q.eras.on);
    assert_int_equal(q.eras.lo, 1);
    assert_int_equal(q.eras.hi, 2);
    assert_true(q.terms[0].eras.on);
    assert_int_equal(q.limit, TUI_QUERY_DEFAULT_LIMIT);

    assert_true(tui_query_parse("  THUNK_1_0  limit:5 ", &q, err, sizeof err));
    assert_int_equal(q.terms[0].kind, DBG_MATCH_TYPE);
    assert_int_equal(q.limit, 5);
    assert_false(q.eras.on);

    assert_true(tui_query_parse("0x4a3f20 type:CONSTR_1_1 con:Chunk era:3", &q, err, sizeof err));
    assert_int_equal(q.n_terms, 3);
    assert_int_equal(q.terms[0].kind, DBG_MATCH_INFO);
    assert_int_equal(q.terms[0].info, 0x4a3f20);
    assert_int_equal(q.terms[1].kind, DBG_MATCH_TYPE);
    assert_int_equal(q.terms[2].kind, DBG_MATCH_CONSTRUCTOR);
    assert_int_equal(q.eras.lo, 3);
    assert_int_equal(q.eras.hi, 3);
    char desc[256];
    tui_query_describe(&q, desc, sizeof desc);
    assert_string_equal(desc, "info 0x4a3f20, type CONSTR_1_1, constructor Chunk, era 3, limit 100");

    assert_true(tui_query_parse("era:2-4", &q, err, sizeof err));   /* eras alone */
    assert_int_equal(q.n_terms, 0);
    tui_query_describe(&q, desc, sizeof desc);
    assert_string_equal(desc, "any object, eras 2-4, limit 100");
}

static void expect_bad(const char *text, const char *msg)
{
    TuiQuery q;
    char err[256] = "";
    assert_false(tui_query_parse(text, &q, err, sizeof err));
    if (strstr(err, msg) == NULL)
        fail_msg("'%s': expected '%s' in '%s'", text, msg, err);
}

static void test_tui_query_rejects_bad_words(void **state)
{
    (void)state;
    expect_bad("", "empty search");
    expect_bad("   ", "empty search");
    expect_bad("colour:red", "unknown search key 'colour'");
    expect_bad("era:5-2", "era:5-2 is not an era range");
    expect_bad("era:x", "era:x is not an era range");
    expect_bad("type:NOPE", "unknown closure type 'NOPE'");
    expect_bad("info:123", "info:123 is not an address");
    expect_bad("0xzz", "'0xzz' is not an info table address");
    expect_bad("limit:0", "limit:0 is not a number from 1");
    expect_bad("limit:9999999999", "is not a number from 1");
    expect_bad("con:", "'con:' has no value");
    expect_bad("a b c d e f g h i", "too many search words");
    char longword[400];
    memset(longword, 'x', sizeof longword - 1);
    longword[sizeof longword - 1] = '\0';
    expect_bad(longword, "too long");
}

static void test_tui_query_matches_all_terms(void **state)
{
    (void)state;
    DbgInfo chunk = {.addr = 0x1000, .type = CONSTR_1_1, .ptrs = 1, .nptrs = 1,
                     .name = "Chunk", .closure_desc = "Chunk"};
    DbgBlock b3 = {.start = 0x10000, .era = 3}, b5 = {.start = 0x20000, .era = 5};
    DbgClosure in3 = {.addr = 0x10010, .info = &chunk, .block = &b3, .era = 3};
    DbgClosure in5 = {.addr = 0x20010, .info = &chunk, .block = &b5, .era = 5};
    DbgClosure stat = {.addr = 0x500, .info = &chunk, .block = NULL, .era = 0};
    TuiQuery q;
    char err[256];
    assert_true(tui_query_parse("Chunk", &q, err, sizeof err));
    assert_true(tui_query_matches(&q, &in3));
    assert_true(tui_query_matches(&q, &in5));
    assert_false(tui_query_matches(&q, &stat));   /* heap objects only */
    assert_true(tui_query_parse("Chunk era:1-4", &q, err, sizeof err));
    assert_true(tui_query_matches(&q, &in3));
    assert_false(tui_query_matches(&q, &in5));
    assert_true(tui_query_parse("Chunk type:CONSTR_1_1 info:0x1000", &q, err, sizeof err));
    assert_true(tui_query_matches(&q, &in5));
    assert_true(tui_query_parse("Chunk type:CONSTR_2_0", &q, err, sizeof err));
    assert_false(tui_query_matches(&q, &in5));
    assert_true(tui_query_parse("Request", &q, err, sizeof err));
    assert_false(tui_query_matches(&q, &in3));
    assert_true(tui_query_parse("era:5", &q, err, sizeof err));
    assert_false(tui_query_matches(&q, &in3));
    assert_true(tui_query_matches(&q, &in5));
}

/* ----------------------------------------------------------------------
 * Keys and the prompt
 * ---------------------------------------------------------------------- */

static const TuiKeys keys = {1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011};

static void test_tui_keys_map_to_actions(void **state)
{
    (void)state;
    assert_int_equal(tui_key_action('q', &keys), TUI_ACT_QUIT);
    assert_int_equal(tui_key_action(3, &keys), TUI_ACT_QUIT);   /* ^C */
    assert_int_equal(tui_key_action('?', &keys), TUI_ACT_HELP);
    assert_int_equal(tui_key_action(1001, &keys), TUI_ACT_UP);
    assert_int_equal(tui_key_action('j', &keys), TUI_ACT_DOWN);
    assert_int_equal(tui_key_action(1004, &keys), TUI_ACT_TOGGLE);
    assert_int_equal(tui_key_action('\n', &keys), TUI_ACT_TOGGLE);
    assert_int_equal(tui_key_action(1003, &keys), TUI_ACT_LEFT);
    assert_int_equal(tui_key_action('/', &keys), TUI_ACT_SEARCH);
    assert_int_equal(tui_key_action('3', &keys), TUI_ACT_VIEW_CENSUS);
    assert_int_equal(tui_key_action('4', &keys), TUI_ACT_VIEW_FRAG);
    assert_int_equal(tui_key_action('s', &keys), TUI_ACT_SNAPSHOT);
    assert_int_equal(tui_key_action(1010, &keys), TUI_ACT_REDRAW);
    assert_int_equal(tui_key_action('Z', &keys), TUI_ACT_NONE);
    /* The help lists every row with an explanation. */
    const char *const *k, *const *w;
    size_t n = tui_help_rows(&k, &w);
    assert_true(n >= 10);
    for (size_t i = 0; i < n; i++)
        assert_true(k[i][0] != '\0' && w[i][0] != '\0');
    assert_non_null(strstr(tui_footer_keys(), "?:help"));
}

static void test_tui_prompt_edits(void **state)
{
    (void)state;
    TuiPrompt p;
    tui_prompt_set(&p, "Sess");
    assert_int_equal(tui_prompt_key(&p, 'i', &keys), TUI_PROMPT_EDITING);
    assert_string_equal(p.text, "Sessi");
    tui_prompt_key(&p, 127, &keys);
    tui_prompt_key(&p, 1011, &keys);   /* KEY_BACKSPACE */
    assert_string_equal(p.text, "Ses");
    tui_prompt_key(&p, 200, &keys);    /* not printable ASCII: ignored */
    assert_string_equal(p.text, "Ses");
    tui_prompt_key(&p, 21, &keys);     /* ^U */
    assert_string_equal(p.text, "");
    tui_prompt_key(&p, 127, &keys);    /* nothing to erase */
    assert_int_equal(p.len, 0);
    assert_int_equal(tui_prompt_key(&p, '\n', &keys), TUI_PROMPT_DONE);
    assert_int_equal(tui_prompt_key(&p, 27, &keys), TUI_PROMPT_CANCELLED);
    /* Full: further keys are dropped, not written past the end. */
    for (int i = 0; i < TUI_PROMPT_MAX + 50; i++)
        tui_prompt_key(&p, 'x', &keys);
    assert_int_equal(p.len, TUI_PROMPT_MAX);
    assert_int_equal(strlen(p.text), TUI_PROMPT_MAX);
    char big[TUI_PROMPT_MAX * 2];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    tui_prompt_set(&p, big);
    assert_int_equal(p.len, TUI_PROMPT_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tui_palette_is_stable_by_era),
        cmocka_unit_test(test_tui_palette_8_colours_stay_readable),
        cmocka_unit_test(test_tui_legend_distinct_sorted_newest_kept),
        cmocka_unit_test(test_tui_tree_expands_lazily_once),
        cmocka_unit_test(test_tui_tree_failed_load_shows_its_message),
        cmocka_unit_test(test_tui_tree_cursor_follows_its_node),
        cmocka_unit_test(test_tui_tree_left_collapses_then_goes_up),
        cmocka_unit_test(test_tui_tree_scroll_keeps_cursor_shown),
        cmocka_unit_test(test_tui_tree_deep_chain_flattens),
        cmocka_unit_test(test_tui_line_layout),
        cmocka_unit_test(test_tui_query_parses_words),
        cmocka_unit_test(test_tui_query_rejects_bad_words),
        cmocka_unit_test(test_tui_query_matches_all_terms),
        cmocka_unit_test(test_tui_keys_map_to_actions),
        cmocka_unit_test(test_tui_prompt_edits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
