/*
 * utils/strata-debug/tui/TuiInput.c -- key bindings and the prompt
 * (TuiInput.h).
 */
#include <string.h>

#include "TuiInput.h"

#define CTRL(c) ((c) & 0x1f)

TuiAction tui_key_action(int key, const TuiKeys *k)
{
    if (key == k->up)
        return TUI_ACT_UP;
    if (key == k->down)
        return TUI_ACT_DOWN;
    if (key == k->left)
        return TUI_ACT_LEFT;
    if (key == k->right || key == k->enter)
        return TUI_ACT_TOGGLE;
    if (key == k->ppage)
        return TUI_ACT_PAGE_UP;
    if (key == k->npage)
        return TUI_ACT_PAGE_DOWN;
    if (key == k->home)
        return TUI_ACT_HOME;
    if (key == k->end)
        return TUI_ACT_END;
    if (key == k->resize)
        return TUI_ACT_REDRAW;
    switch (key) {
    case 'q': case 'Q': case CTRL('c'): return TUI_ACT_QUIT;
    case '?': return TUI_ACT_HELP;
    case 'k': return TUI_ACT_UP;
    case 'j': return TUI_ACT_DOWN;
    case 'h': return TUI_ACT_LEFT;
    case 'l': case ' ': case '\n': case '\r': return TUI_ACT_TOGGLE;
    case CTRL('b'): return TUI_ACT_PAGE_UP;
    case CTRL('f'): return TUI_ACT_PAGE_DOWN;
    case 'g': return TUI_ACT_HOME;
    case 'G': return TUI_ACT_END;
    case '/': return TUI_ACT_SEARCH;
    case '1': return TUI_ACT_VIEW_ROOTS;
    case '2': return TUI_ACT_VIEW_SEARCH;
    case '3': return TUI_ACT_VIEW_CENSUS;
    case '4': return TUI_ACT_VIEW_FRAG;
    case '5': return TUI_ACT_VIEW_DIFF;
    case 'd': return TUI_ACT_DIFF;
    case '\t': return TUI_ACT_NEXT_VIEW;
    case 'b': return TUI_ACT_CENSUS_BY;
    case 's': return TUI_ACT_SNAPSHOT;
    case 'r': return TUI_ACT_REFRESH;
    case CTRL('l'): return TUI_ACT_REDRAW;
    default: return TUI_ACT_NONE;
    }
}

static const char *const help_keys[] = {
    "Up/Down, k/j", "PgUp/PgDn, ^B/^F", "Home/End, g/G", "Enter, Space, Right, l",
    "Left, h", "/", "1 2 3 4 5, Tab", "b", "d", "s", "r", "^L", "?", "q, ^C",
};
static const char *const help_what[] = {
    "move the cursor",
    "move a page",
    "first / last line",
    "expand or collapse (a closure: its info table, era, size and fields; a search "
    "result: its retainer path)",
    "collapse, or go to the parent",
    "search: a constructor, type:CLOSURE_TYPE, info:0xADDR, era:LO-HI, limit:N (default 100)",
    "views: roots, search results, census, fragmentation, diff",
    "census: group by type, info table, era, module",
    "diff against an earlier snapshot (A): new groups and survivors, by era colour",
    "write a snapshot of the paused heap to a file",
    "refresh: let the program run a moment, then pause it again (live only)",
    "redraw the screen",
    "this help (any key closes it)",
    "quit (a live program is resumed)",
};

size_t tui_help_rows(const char *const **keys, const char *const **what)
{
    *keys = help_keys;
    *what = help_what;
    return sizeof help_keys / sizeof help_keys[0];
}

const char *tui_footer_keys(void)
{
    return "?:help  q:quit  /:search  Enter:expand  1-5:views  b:group  d:diff  s:snapshot  r:refresh";
}

void tui_prompt_set(TuiPrompt *p, const char *text)
{
    size_t n = strlen(text);
    if (n > TUI_PROMPT_MAX)
        n = TUI_PROMPT_MAX;
    memcpy(p->text, text, n);
    p->text[n] = '\0';
    p->len = n;
}

TuiPromptState tui_prompt_key(TuiPrompt *p, int key, const TuiKeys *k)
{
    if (key == '\n' || key == '\r' || key == k->enter)
        return TUI_PROMPT_DONE;
    if (key == 27 || key == CTRL('g') || key == CTRL('c'))
        return TUI_PROMPT_CANCELLED;
    if (key == 127 || key == 8 || key == k->backspace || key == k->left) {   /* no cursor: left erases */
        if (p->len > 0)
            p->text[--p->len] = '\0';
        return TUI_PROMPT_EDITING;
    }
    if (key == CTRL('u')) {
        p->len = 0;
        p->text[0] = '\0';
        return TUI_PROMPT_EDITING;
    }
    if (key >= 0x20 && key < 0x7f && p->len < TUI_PROMPT_MAX) {
        p->text[p->len++] = (char)key;
        p->text[p->len] = '\0';
    }
    return TUI_PROMPT_EDITING;
}
