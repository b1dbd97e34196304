/*
 * utils/strata-debug/tui/TuiInput.h -- keys to actions, and the one-line
 * prompt's editing.  Pure: key codes are ncurses's (KEY_* values are
 * passed in by the caller, so this file needs no curses header), and the
 * help screen and footer are generated from the same table, so they
 * cannot disagree with what the keys do.
 */
#ifndef STRATA_TUIINPUT_H
#define STRATA_TUIINPUT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    TUI_ACT_NONE,
    TUI_ACT_QUIT,
    TUI_ACT_HELP,
    TUI_ACT_UP,
    TUI_ACT_DOWN,
    TUI_ACT_PAGE_UP,
    TUI_ACT_PAGE_DOWN,
    TUI_ACT_HOME,
    TUI_ACT_END,
    TUI_ACT_TOGGLE,              /* expand or collapse */
    TUI_ACT_LEFT,                /* collapse, or go to the parent */
    TUI_ACT_SEARCH,
    TUI_ACT_VIEW_ROOTS,
    TUI_ACT_VIEW_SEARCH,
    TUI_ACT_VIEW_CENSUS,
    TUI_ACT_VIEW_FRAG,
    TUI_ACT_VIEW_DIFF,
    TUI_ACT_DIFF,                /* diff against a snapshot (asks for it) */
    TUI_ACT_NEXT_VIEW,
    TUI_ACT_CENSUS_BY,           /* census: next grouping */
    TUI_ACT_SNAPSHOT,
    TUI_ACT_REFRESH,             /* live: resume a moment, pause again */
    TUI_ACT_REDRAW,
} TuiAction;

/* The special keys, as the caller's curses defines them. */
typedef struct {
    int up, down, left, right, ppage, npage, home, end, enter, resize, backspace;
} TuiKeys;

TuiAction tui_key_action(int key, const TuiKeys *k);

/* The key table, for the help screen: keys[i] is shown as a key column
 * and what[i] explains it; returns the number of rows. */
size_t tui_help_rows(const char *const **keys, const char *const **what);
/* The footer's short key list. */
const char *tui_footer_keys(void);

/* The prompt: a line being edited. */
#define TUI_PROMPT_MAX 200
typedef struct {
    char text[TUI_PROMPT_MAX + 1];
    size_t len;
} TuiPrompt;

typedef enum { TUI_PROMPT_EDITING, TUI_PROMPT_DONE, TUI_PROMPT_CANCELLED } TuiPromptState;

void tui_prompt_set(TuiPrompt *p, const char *text);
/* Feeds one key: printable ASCII is inserted, backspace deletes, ^U clears,
 * Enter finishes, Escape or ^G cancels. */
TuiPromptState tui_prompt_key(TuiPrompt *p, int key, const TuiKeys *k);

#endif /* STRATA_TUIINPUT_H */
