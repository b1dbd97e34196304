/*
 * wire/TextOut.c -- every tool writes strings through here: labels,
 * markers, program arguments, file names, in text, JSON, Prometheus
 * label values and HTML.  Relies on base/Utf8.c for what is UTF-8.  See
 * Note [One way to write a string].
 */
#include "TextOut.h"

#include <stdint.h>
#include <string.h>

#include "Utf8.h"

/* Note [One way to write a string]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The strings the tools show come from the program (constructor names,
 * modules, markers, its arguments) and are UTF-8 as GHC and strata write
 * them, but a log may hold any bytes.  Every output writes them one way:
 *  - Well-formed UTF-8 (base/Utf8.c) passes through as UTF-8, in text
 *    and in JSON alike: a constructor `Café→λ` reads `Café→λ` on a
 *    terminal, and a JSON reader decodes it to `Café→λ`.  (Escaping each
 *    byte, as strata-events did, showed `CafÃ©â\u0086\u0092Î»`: the
 *    Latin-1 reading of the bytes, a wrong label.)
 *  - A control character (U+0000-U+001F, U+007F-U+009F) never reaches a
 *    terminal as itself, where it could move the cursor or change the
 *    colours: text and HTML write each of its bytes as \xNN; JSON escapes
 *    it exactly (\u00NN), for the programs that read it; a Prometheus
 *    label value, which Grafana shows to people and which has no escape
 *    but \n for a line feed, writes it as \\xNN (read back: \xNN, as on
 *    a terminal), so that no NUL or escape sequence reaches a dashboard.
 *  - A byte that starts no well-formed sequence has no character to
 *    show, so every output shows the same four characters \xNN (NN its
 *    value in lower-case hex): as they are in text and HTML, and as
 *    \\xNN in JSON and in a Prometheus label, so that the decoded string
 *    reads \xNN there too.  The output stays valid UTF-8 and valid JSON,
 *    and the bad byte's value is kept.  Decoded JSON cannot tell it from
 *    a label that spells \xNN itself; quoted text can (a backslash of the
 *    label is \\ there).
 *    (The TUI draws on a terminal whose locale may not be UTF-8; there
 *    it shows every byte of a non-ASCII character as \xNN too.)
 *  - The quoting characters of each format are escaped by its rule:
 *    \" and \\ in quoted text and JSON; \\ and \" in a Prometheus label;
 *    &amp; &lt; &gt; &quot; in HTML; and, for JSON inside an HTML
 *    <script> element, < > & as \u003c \u003e \u0026, so that no label
 *    can close the element.
 */

static const char hex[] = "0123456789abcdef";

static size_t put_byte_escape(char *out, unsigned char b, int doubled)
{
    size_t n = 0;
    out[n++] = '\\';
    if (doubled)
        out[n++] = '\\';
    out[n++] = 'x';
    out[n++] = hex[b >> 4];
    out[n++] = hex[b & 15];
    return n;
}

static int is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* A character that is not a control, a quote or invalid: its special
 * form in style, or 0 (written as it is). */
static size_t put_special(char *out, uint32_t cp, TextStyle style)
{
    const char *e = NULL;
    switch (style) {
    case TEXT_QUOTED:
    case TEXT_JSON:
    case TEXT_PROMETHEUS:
        e = cp == '"' ? "\\\"" : cp == '\\' ? "\\\\" : NULL;
        break;
    case TEXT_JSON_SCRIPT:
        e = cp == '"' ? "\\\"" : cp == '\\' ? "\\\\" : cp == '<' ? "\\u003c"
          : cp == '>' ? "\\u003e" : cp == '&' ? "\\u0026" : NULL;
        break;
    case TEXT_HTML:
        e = cp == '&' ? "&amp;" : cp == '<' ? "&lt;" : cp == '>' ? "&gt;"
          : cp == '"' ? "&quot;" : NULL;
        break;
    case TEXT_TERMINAL:
    case TEXT_ASCII:
        break;
    }
    if (e == NULL)
        return 0;
    size_t n = strlen(e);
    memcpy(out, e, n);
    return n;
}

/* A control character of n bytes at s (or, in TEXT_ASCII, any character
 * of more than one byte). */
static size_t put_control(char *out, const unsigned char *s, size_t n, uint32_t cp,
                          TextStyle style)
{
    if (style == TEXT_JSON || style == TEXT_JSON_SCRIPT) {
        memcpy(out, "\\u00", 4);
        out[4] = hex[cp >> 4];
        out[5] = hex[cp & 15];
        return 6;
    }
    if (style == TEXT_PROMETHEUS && cp == '\n') {
        memcpy(out, "\\n", 2);
        return 2;
    }
    size_t k = 0;
    for (size_t b = 0; b < n; b++)
        k += put_byte_escape(out + k, s[b], style == TEXT_PROMETHEUS);
    return k;
}

size_t text_escape_char(const char *s, size_t len, size_t *i, TextStyle style,
                        char out[TEXT_CHAR_MAX])
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t n = utf8_valid_len(p, len - *i);
    if (n == 0) {
        *i += 1;
        return put_byte_escape(out, p[0], style == TEXT_JSON || style == TEXT_JSON_SCRIPT ||
                                              style == TEXT_PROMETHEUS);
    }
    *i += n;
    uint32_t cp = utf8_code_point(p, n);
    if (is_control(cp) || (style == TEXT_ASCII && n > 1))
        return put_control(out, p, n, cp, style);
    size_t k = put_special(out, cp, style);
    if (k > 0)
        return k;
    memcpy(out, p, n);
    return n;
}

size_t text_escape(char *buf, size_t cap, const char *s, size_t len, TextStyle style)
{
    size_t total = 0, written = 0, i = 0;
    int full = cap == 0;
    char one[TEXT_CHAR_MAX];
    while (i < len) {
        size_t n = text_escape_char(s, len, &i, style, one);
        if (!full && written + n < cap) {   /* whole characters only */
            memcpy(buf + written, one, n);
            written += n;
        } else {
            full = 1;
        }
        total += n;
    }
    if (cap > 0)
        buf[written] = '\0';
    return total;
}

void text_write(FILE *f, const char *s, size_t len, TextStyle style)
{
    char chunk[256];
    size_t used = 0, i = 0;
    while (i < len) {
        if (used + TEXT_CHAR_MAX > sizeof chunk) {
            fwrite(chunk, 1, used, f);
            used = 0;
        }
        used += text_escape_char(s, len, &i, style, chunk + used);
    }
    fwrite(chunk, 1, used, f);
}

void text_write_cstr(FILE *f, const char *s, TextStyle style)
{
    text_write(f, s, strlen(s), style);
}
