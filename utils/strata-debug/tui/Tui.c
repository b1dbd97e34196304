/*
 * utils/strata-debug/tui/Tui.c -- the terminal UI's event loop (Tui.h): reads
 * keys, turns them into actions (TuiInput.h) on the heap's views
 * (TuiHeap.h) and redraws (TuiDraw.h).
 */
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "Tui.h"
#include "TuiDraw.h"
#include "TuiHeap.h"
#include "TuiHeapDiff.h"
#include "TuiHeapPanes.h"
#include "TuiInput.h"

static volatile sig_atomic_t quit_signal;

static void on_signal(int sig)
{
    quit_signal = sig;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct {
    TuiScreen screen;
    TuiHeap heap;
    TuiUiState ui;
    TuiPrompt prompt;
    enum { PROMPT_NONE, PROMPT_SEARCH, PROMPT_SNAPSHOT, PROMPT_DIFF } prompt_kind;
    TuiKeys keys;
} Tui;

/* Shows a "working" line before a long operation. */
static void working(Tui *t, const char *msg)
{
    t->ui.working = msg;
    tui_draw(&t->screen, &t->heap, &t->ui);
    t->ui.working = NULL;
}

static void show_view(Tui *t, TuiView v)
{
    t->ui.view = v;
    if (tui_heap_needs_traversal(&t->heap, v) && v != TUI_VIEW_SEARCH)
        working(t, "working: traversing the heap...");
    tui_heap_build_view(&t->heap, v);
}

static void toggle(Tui *t)
{
    TuiTree *tree = &t->heap.views[t->ui.view];
    TuiNode *n = tui_tree_current(tree);
    if (n == NULL || !n->expandable)
        return;
    if (!n->expanded && !n->loaded &&
        (n->kind == TUI_NODE_RESULT || n->kind == TUI_NODE_PINNED) && t->heap.reach == NULL)
        working(t, "working: traversing the heap...");
    tui_tree_toggle(tree, n);
    tui_tree_layout(tree);
}

static void finish_prompt(Tui *t)
{
    int kind = t->prompt_kind;
    t->prompt_kind = PROMPT_NONE;
    t->ui.prompt_label = NULL;
    if (kind == PROMPT_SEARCH) {
        if (t->heap.reach == NULL)
            working(t, "working: traversing the heap, then searching...");
        else
            working(t, "working: searching...");
        if (tui_heap_search(&t->heap, t->prompt.text) == 0)
            t->ui.view = TUI_VIEW_SEARCH;
    } else if (kind == PROMPT_SNAPSHOT) {
        working(t, "working: writing the snapshot...");
        tui_heap_snapshot(&t->heap, t->prompt.text);
    } else if (kind == PROMPT_DIFF) {
        working(t, "working: reading A, then traversing this heap...");
        t->ui.view = TUI_VIEW_DIFF;
        tui_heap_diff(&t->heap, t->prompt.text);
    }
}

static void start_prompt(Tui *t, int kind, const char *label, const char *initial)
{
    t->prompt_kind = kind;
    t->ui.prompt_label = label;
    tui_prompt_set(&t->prompt, initial);
}

/* A key the terminal description does not know (End on a vt100) arrives
 * as ESC and the rest of its sequence: drop the rest, so that its digits
 * are not taken for commands. */
static void drop_escape_sequence(void)
{
    timeout(0);
    int c = getch();
    if (c == '[' || c == 'O') {
        /* Parameters and intermediates, up to the final byte. */
        while ((c = getch()) != ERR && !(c >= 0x40 && c <= 0x7e))
            ;
    }
    timeout(250);
}

/* Handles one key; returns false to quit. */
static bool handle_key(Tui *t, int key)
{
    if (t->ui.help) {   /* any key closes the help */
        t->ui.help = false;
        return true;
    }
    if (t->prompt_kind != PROMPT_NONE) {
        if (key == KEY_RESIZE)
            return true;
        TuiPromptState st = tui_prompt_key(&t->prompt, key, &t->keys);
        if (st == TUI_PROMPT_DONE)
            finish_prompt(t);
        else if (st == TUI_PROMPT_CANCELLED) {
            t->prompt_kind = PROMPT_NONE;
            t->ui.prompt_label = NULL;
        }
        return true;
    }
    TuiTree *tree = &t->heap.views[t->ui.view];
    long page = (long)tui_body_height(&t->screen);
    t->heap.status_error = false;
    switch (tui_key_action(key, &t->keys)) {
    case TUI_ACT_QUIT: return false;
    case TUI_ACT_HELP: t->ui.help = true; break;
    case TUI_ACT_UP: tui_tree_move(tree, -1); break;
    case TUI_ACT_DOWN: tui_tree_move(tree, 1); break;
    case TUI_ACT_PAGE_UP: tui_tree_move(tree, -(page > 1 ? page - 1 : 1)); break;
    case TUI_ACT_PAGE_DOWN: tui_tree_move(tree, page > 1 ? page - 1 : 1); break;
    case TUI_ACT_HOME: tui_tree_home(tree); break;
    case TUI_ACT_END: tui_tree_end(tree); break;
    case TUI_ACT_TOGGLE: toggle(t); break;
    case TUI_ACT_LEFT: tui_tree_left(tree); break;
    case TUI_ACT_SEARCH: start_prompt(t, PROMPT_SEARCH, "search> ", t->heap.query_text); break;
    case TUI_ACT_VIEW_ROOTS: show_view(t, TUI_VIEW_ROOTS); break;
    case TUI_ACT_VIEW_SEARCH: show_view(t, TUI_VIEW_SEARCH); break;
    case TUI_ACT_VIEW_CENSUS: show_view(t, TUI_VIEW_CENSUS); break;
    case TUI_ACT_VIEW_FRAG: show_view(t, TUI_VIEW_FRAG); break;
    case TUI_ACT_VIEW_DIFF: show_view(t, TUI_VIEW_DIFF); break;
    case TUI_ACT_DIFF: start_prompt(t, PROMPT_DIFF, "diff against snapshot A> ", ""); break;
    case TUI_ACT_NEXT_VIEW: show_view(t, (TuiView)((t->ui.view + 1) % TUI_N_VIEWS)); break;
    case TUI_ACT_CENSUS_BY:
        if (t->heap.reach == NULL)
            working(t, "working: traversing the heap...");
        t->ui.view = TUI_VIEW_CENSUS;
        tui_heap_next_census_by(&t->heap);
        break;
    case TUI_ACT_SNAPSHOT: {
        char name[256];
        const DbgTarget *tg = dbg_target(t->heap.c);
        snprintf(name, sizeof name, "%s-%u-era%llu.snap", tg->program, tg->pid,
                 (unsigned long long)tg->era);
        start_prompt(t, PROMPT_SNAPSHOT, "snapshot file> ", name);
        break;
    }
    case TUI_ACT_REFRESH:
        working(t, "working: resuming the program, pausing it again...");
        tui_heap_refresh(&t->heap);
        break;
    case TUI_ACT_REDRAW: clearok(stdscr, TRUE); break;
    case TUI_ACT_NONE: break;
    }
    return true;
}

int tui_run(DbgClient *c, const char *source, uint32_t timeout_ms, bool stats)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "strata-debug: tui needs a terminal (stdin and stdout must be a tty); "
                        "use the other commands in scripts\n");
        return 1;
    }
    double t0 = now_s();
    static Tui t;
    memset(&t, 0, sizeof t);
    if (tui_heap_open(&t.heap, c, source, timeout_ms) != 0) {
        fprintf(stderr, "strata-debug: tui: %s\n", t.heap.status);
        tui_heap_close(&t.heap);
        return 1;
    }
    double t_roots = now_s();
    char err[256];
    if (!tui_screen_start(&t.screen, err, sizeof err)) {
        fprintf(stderr, "strata-debug: tui: %s\n", err);
        tui_heap_close(&t.heap);
        return 1;
    }
    t.keys = (TuiKeys){KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT, KEY_PPAGE, KEY_NPAGE,
                       KEY_HOME, KEY_END, KEY_ENTER, KEY_RESIZE, KEY_BACKSPACE};
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    t.ui.view = TUI_VIEW_ROOTS;
    t.ui.prompt = &t.prompt;
    snprintf(t.heap.status, sizeof t.heap.status,
             dbg_is_snapshot(c) ? "snapshot opened; ? for help" : "program paused; q resumes it "
             "and quits; ? for help");
    tui_draw(&t.screen, &t.heap, &t.ui);
    double t_drawn = now_s();
    /* Wake up now and then to notice a signal. */
    timeout(250);
    while (quit_signal == 0) {
        int key = getch();
        if (key == ERR)
            continue;
        if (key == 27) {
            drop_escape_sequence();
            if (t.prompt_kind == PROMPT_NONE && !t.ui.help)
                continue;   /* else Escape cancels the prompt or closes the help */
        }
        if (!handle_key(&t, key))
            break;
        tui_draw(&t.screen, &t.heap, &t.ui);
    }
    tui_screen_stop(&t.screen);
    if (stats) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        size_t n = 0;
        if (t.heap.reach != NULL)
            dbg_reach_objects(t.heap.reach, &n);
        fprintf(stderr, "strata-debug: tui: roots fetched in %.3f ms, first screen drawn at "
                "%.3f ms; traversal %.3f s (%zu objects); max RSS %ld KiB\n",
                (t_roots - t0) * 1e3, (t_drawn - t0) * 1e3, t.heap.reach_seconds, n,
                ru.ru_maxrss);
    }
    tui_heap_close(&t.heap);
    if (quit_signal != 0)
        fprintf(stderr, "strata-debug: tui: stopped by signal %d\n", (int)quit_signal);
    return 0;
}
