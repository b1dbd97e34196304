/*
 * wire/TextOut.h -- one way to write a string in every output of the
 * tools: text for a terminal, JSON, Prometheus label values and HTML
 * (Note [One way to write a string] in TextOut.c).  The whole API of
 * TextOut.c.
 */
#ifndef STRATA_WIRE_TEXT_OUT_H
#define STRATA_WIRE_TEXT_OUT_H

#include <stddef.h>
#include <stdio.h>

/* Where the string goes; each escapes what its format needs, and every
 * one passes well-formed UTF-8 through and shows an invalid byte as the
 * four characters \xNN (see the Note). */
typedef enum TextStyle {
    TEXT_TERMINAL,     /* read by a person: control characters as \xNN too */
    TEXT_ASCII,        /* TEXT_TERMINAL for a terminal that is not UTF-8:
                        * every byte of a non-ASCII character as \xNN too */
    TEXT_QUOTED,       /* TEXT_TERMINAL inside "...": \" and \\ as well */
    TEXT_JSON,         /* inside a JSON string: \" \\, controls as \u00NN */
    TEXT_JSON_SCRIPT,  /* TEXT_JSON, and < > & as \u003c \u003e \u0026, so the
                        * JSON can stand inside an HTML <script> element */
    TEXT_PROMETHEUS,   /* a Prometheus label value: \\ \" and line feed as \n,
                        * other control characters as \\xNN */
    TEXT_HTML          /* HTML text or attribute: & < > " as entities,
                        * control characters as \xNN */
} TextStyle;

/* The most bytes text_escape_char writes for one character: a character
 * of four bytes, each as \\xNN. */
#define TEXT_CHAR_MAX 20
/* The most bytes the escaped form of len bytes takes. */
#define TEXT_ESCAPED_MAX(len) (6 * (size_t)(len))

/* The character at s[*i] (s holds len bytes) in its escaped form, into
 * out; *i moves past it.  Returns the bytes written (at least 1). */
size_t text_escape_char(const char *s, size_t len, size_t *i, TextStyle style,
                        char out[TEXT_CHAR_MAX]);

/* s[0 .. len) escaped into buf, as snprintf does: the whole characters
 * that fit in cap - 1 bytes and a NUL (nothing when cap is 0); returns
 * the length of the whole escaped form. */
size_t text_escape(char *buf, size_t cap, const char *s, size_t len, TextStyle style);

/* s[0 .. len), or the NUL-terminated s, escaped onto f. */
void text_write(FILE *f, const char *s, size_t len, TextStyle style);
void text_write_cstr(FILE *f, const char *s, TextStyle style);

#endif /* STRATA_WIRE_TEXT_OUT_H */
