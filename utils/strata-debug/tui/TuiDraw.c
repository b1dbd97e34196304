/*
 * utils/strata-debug/tui/TuiDraw.c -- drawing with ncurses (TuiDraw.h).
 */
#include <curses.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TuiDraw.h"
#include "TuiPalette.h"
#include "TuiTree.h"

/* Colour pairs: 1 .. TUI_ERA_SLOTS for the eras, then the bars. */
#define PAIR_ERA(slot) ((short)(1 + (slot)))
#define PAIR_BAR ((short)(1 + TUI_ERA_SLOTS))
#define PAIR_ERROR ((short)(2 + TUI_ERA_SLOTS))

/* Header, status and footer: three rows that are not the body. */
#define CHROME_ROWS 3
#define MIN_ROWS (CHROME_ROWS + 2)
#define MIN_COLS 30

bool tui_screen_start(TuiScreen *s, char *err, size_t err_len)
{
    memset(s, 0, sizeof *s);
    const char *term = getenv("TERM");
    if (term == NULL || term[0] == '\0') {
        snprintf(err, err_len, "TERM is not set: the tui needs to know the terminal type");
        return false;
    }
    /* The terminal's character set is the locale's: UTF-8 text is drawn
     * as it is on a UTF-8 terminal, and as \xNN bytes on any other. */
    setlocale(LC_CTYPE, "");
    tui_text_set_utf8(strcmp(nl_langinfo(CODESET), "UTF-8") == 0);
    /* newterm, not initscr: an unknown terminal is an error, not an exit. */
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (scr == NULL) {
        snprintf(err, err_len, "unknown terminal type '%s' (no terminfo entry)", term);
        return false;
    }
    set_term(scr);
    raw();   /* ^C is a key (quit cleanly, resuming the program) */
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(50);   /* a lone Escape (cancel) needs no long wait */
    curs_set(0);
    const char *no_color = getenv("NO_COLOR");
    bool want_color = no_color == NULL || no_color[0] == '\0';
    if (want_color && has_colors() && start_color() == OK && COLORS >= 8 && COLOR_PAIRS > 16) {
        s->color = true;
        s->color256 = COLORS >= 256;
        for (int slot = 0; slot < TUI_ERA_SLOTS; slot++) {
            bool black = true;
            short bg = (short)(s->color256 ? tui_slot_color256(slot) : tui_slot_color8(slot, &black));
            init_pair(PAIR_ERA(slot), black ? COLOR_BLACK : COLOR_WHITE, bg);
        }
        init_pair(PAIR_BAR, COLOR_WHITE, COLOR_BLUE);
        init_pair(PAIR_ERROR, COLOR_WHITE, COLOR_RED);
    }
    getmaxyx(stdscr, s->rows, s->cols);
    return true;
}

void tui_screen_stop(TuiScreen *s)
{
    (void)s;
    endwin();
}

size_t tui_body_height(const TuiScreen *s)
{
    return s->rows > CHROME_ROWS ? (size_t)(s->rows - CHROME_ROWS) : 0;
}

/* Writes text at (y, x), at most width columns. */
static void put(int y, int x, const char *text, int width)
{
    if (width <= 0)
        return;
    char *buf = malloc(TUI_LINE_BYTES(width));
    if (buf == NULL)
        return;
    tui_text_fit(text, (size_t)width, buf);
    mvaddstr(y, x, buf);
    free(buf);
}

static attr_t bar_attr(const TuiScreen *s)
{
    return s->color ? COLOR_PAIR(PAIR_BAR) : A_REVERSE;
}

static void fill_row(int y, int cols, attr_t a)
{
    attrset(a);
    mvhline(y, 0, ' ', cols);
}

static void draw_header(const TuiScreen *s, TuiHeap *h, TuiView view)
{
    fill_row(0, s->cols, bar_attr(s));
    const DbgTarget *t = dbg_target(h->c);
    char left[512];
    if (dbg_is_snapshot(h->c)) {
        const char *slash = strrchr(h->source, '/');
        snprintf(left, sizeof left, " strata-debug tui: %s (pid %u), snapshot %s, era %" PRIu64
                 " ", t->program, t->pid, slash ? slash + 1 : h->source, t->era);
    } else if (h->running) {
        snprintf(left, sizeof left, " strata-debug tui: %s (pid %u), running ", t->program,
                 t->pid);
    } else {
        snprintf(left, sizeof left, " strata-debug tui: %s (pid %u), paused at era %" PRIu64
                 " ", t->program, t->pid, t->era);
    }
    put(0, 0, left, s->cols);
    int x = (int)strlen(left);
    for (int v = 0; v < TUI_N_VIEWS && x < s->cols; v++) {
        char tab[64];
        snprintf(tab, sizeof tab, v == (int)view ? "[%d:%s]" : " %d:%s ", v + 1,
                 tui_view_name((TuiView)v));
        attrset(bar_attr(s) | (v == (int)view ? A_BOLD : A_NORMAL));
        put(0, x, tab, s->cols - x);
        x += (int)strlen(tab);
    }
    attrset(A_NORMAL);
}

static void draw_body(const TuiScreen *s, TuiHeap *h, TuiView view)
{
    TuiTree *t = &h->views[view];
    size_t height = tui_body_height(s);
    tui_tree_scroll(t, height);
    size_t cap = TUI_LINE_BYTES(s->cols);
    char *buf = malloc(cap);
    if (buf == NULL)
        return;
    for (size_t i = 0; i < height; i++) {
        size_t li = t->top + i;
        int y = 1 + (int)i;
        if (li >= t->n_lines) {
            attrset(A_NORMAL);
            move(y, 0);
            clrtoeol();
            continue;
        }
        const TuiLine *l = &t->lines[li];
        attr_t a = A_NORMAL;
        if (s->color && l->node->has_era)
            a = COLOR_PAIR(PAIR_ERA(tui_era_slot(l->node->era)));
        if (l->node->boundary)
            a |= A_BOLD | A_REVERSE;
        if (li == t->cursor)
            a |= A_REVERSE | A_BOLD;
        attrset(a);
        tui_line_format(l, (size_t)s->cols, true, buf);
        mvaddnstr(y, 0, buf, -1);
    }
    attrset(A_NORMAL);
    free(buf);
}

static void draw_status(const TuiScreen *s, TuiHeap *h, const TuiUiState *ui)
{
    int y = s->rows - 2;
    attrset(A_NORMAL);
    move(y, 0);
    clrtoeol();
    char line[512];
    if (ui->prompt_label != NULL) {
        snprintf(line, sizeof line, "%s%s_", ui->prompt_label, ui->prompt->text);
        /* Keep the end of a long entry in view. */
        size_t len = strlen(line);
        const char *shown = len > (size_t)s->cols ? line + len - (size_t)s->cols : line;
        attrset(A_BOLD);
        put(y, 0, shown, s->cols);
    } else if (ui->working != NULL) {
        attrset(A_BOLD);
        put(y, 0, ui->working, s->cols);
    } else if (h->status[0] != '\0') {
        attrset(h->status_error ? (s->color ? COLOR_PAIR(PAIR_ERROR) : A_BOLD) : A_NORMAL);
        put(y, 0, h->status, s->cols);
    }
    attrset(A_NORMAL);
}

/* The keys on the left, the eras of the visible rows on the right. */
static void draw_footer(const TuiScreen *s, TuiHeap *h, TuiView view)
{
    int y = s->rows - 1;
    fill_row(y, s->cols, bar_attr(s));
    TuiTree *t = &h->views[view];
    size_t height = tui_body_height(s);
    uint64_t eras[256], legend[16];
    size_t n = 0;
    for (size_t i = t->top; i < t->n_lines && i < t->top + height && n < 256; i++)
        if (t->lines[i].node->has_era)
            eras[n++] = t->lines[i].node->era;
    size_t nl = tui_legend_eras(eras, n, legend, 16);
    /* Lay the legend out from the right edge. */
    char items[16][24];
    int width = 0;
    size_t first = 0;
    for (size_t i = 0; i < nl; i++)
        snprintf(items[i], sizeof items[i], " %" PRIu64 " ", legend[i]);
    const char *title = s->color ? " eras:" : " no colour: eras as text";
    int title_w = (int)strlen(title);
    if (s->color) {
        for (size_t i = nl; i-- > 0;) {
            int w = (int)strlen(items[i]);
            if (width + w + title_w > s->cols / 2) {
                first = i + 1;
                break;
            }
            width += w;
        }
    }
    int legend_x = s->cols - width - title_w;
    if (legend_x < 0)
        legend_x = s->cols;
    attrset(bar_attr(s));
    put(y, 0, " ", s->cols);
    put(y, 1, tui_footer_keys(), legend_x - 2);
    if (legend_x < s->cols) {
        put(y, legend_x, title, s->cols - legend_x);
        int x = legend_x + title_w;
        for (size_t i = first; s->color && i < nl; i++) {
            attrset(COLOR_PAIR(PAIR_ERA(tui_era_slot(legend[i]))));
            put(y, x, items[i], s->cols - x);
            x += (int)strlen(items[i]);
        }
    }
    attrset(A_NORMAL);
}

/* Text wrapped into width columns from row y, at most max_rows rows (or
 * none, to count them); returns the rows it takes. */
static int put_wrapped(int y, int x, const char *text, int width, int max_rows, bool draw)
{
    int rows = 0;
    const char *next;
    char piece[512];
    for (size_t len; (len = tui_wrap(text, (size_t)width, &next)) > 0; text = next) {
        if (draw && rows < max_rows) {
            snprintf(piece, sizeof piece, "%.*s", (int)len, text);
            put(y + rows, x, piece, width);
        }
        rows++;
    }
    return rows ? rows : 1;
}

static void draw_help(const TuiScreen *s)
{
    const char *const *keys, *const *what;
    size_t n = tui_help_rows(&keys, &what);
    const char *foot = "Rows are coloured by era (legend in the footer). "
                       "See docs/strata-debug-tui.md.";
    int kw = 24;
    int w = s->cols - 4 < 100 ? s->cols - 4 : 100;
    int tw = w - 4 - kw;
    if (tw < 10) {   /* too narrow for two columns: keys above their text */
        kw = 0;
        tw = w - 4;
    }
    int body = 0;
    for (size_t i = 0; i < n; i++)
        body += (kw ? 0 : 1) + put_wrapped(0, 0, what[i], tw, 0, false);
    int hgt = body + 5 + put_wrapped(0, 0, foot, w - 4, 0, false);
    if (hgt > s->rows)
        hgt = s->rows;
    int y0 = (s->rows - hgt) / 2, x0 = (s->cols - w) / 2;
    attrset(A_NORMAL);
    for (int y = y0; y < y0 + hgt; y++)
        mvhline(y, x0, ' ', w);
    /* An ASCII frame: vt100 has no line drawing we rely on. */
    for (int k = 0; k < 2; k++) {
        int y = k == 0 ? y0 : y0 + hgt - 1;
        mvaddch(y, x0, '+');
        mvhline(y, x0 + 1, '-', w - 2);
        mvaddch(y, x0 + w - 1, '+');
    }
    for (int y = y0 + 1; y < y0 + hgt - 1; y++) {
        mvaddch(y, x0, '|');
        mvaddch(y, x0 + w - 1, '|');
    }
    attrset(A_BOLD);
    put(y0 + 1, x0 + 2, "strata-debug tui: keys (any key closes this help)", w - 4);
    int y = y0 + 3, last = y0 + hgt - 2;
    for (size_t i = 0; i < n && y < last; i++) {
        attrset(A_BOLD);
        put(y, x0 + 2, keys[i], kw ? kw - 1 : w - 4);
        attrset(A_NORMAL);
        if (kw == 0)
            y++;
        y += put_wrapped(y, x0 + 2 + kw, what[i], tw, last - y, true);
    }
    if (y < last)
        put_wrapped(y + 1 <= last ? y + 1 : y, x0 + 2, foot, w - 4, last - y, true);
}

void tui_draw(TuiScreen *s, TuiHeap *h, const TuiUiState *ui)
{
    getmaxyx(stdscr, s->rows, s->cols);
    erase();
    if (s->rows < MIN_ROWS || s->cols < MIN_COLS) {
        char msg[128];
        snprintf(msg, sizeof msg, "terminal too small (%dx%d; need %dx%d); q quits", s->cols,
                 s->rows, MIN_COLS, MIN_ROWS);
        put(0, 0, msg, s->cols);
        refresh();
        return;
    }
    draw_header(s, h, ui->view);
    draw_body(s, h, ui->view);
    draw_status(s, h, ui);
    draw_footer(s, h, ui->view);
    if (ui->help)
        draw_help(s);
    refresh();
}
