/*
 * profiling/SourcePath.c -- source file names for provenance: joins a
 * DWARF unit's build directory and a file name, normalises the result
 * lexically and strips the source root (SourcePath.h).  Pure string work:
 * no file is opened, so it gives the same answer for a runtime installed
 * far from its sources.  Why these roots: Note [Which root a source file
 * is shown under], and docs/design/provenance.md.
 */
#include "SourcePath.h"

#include <string.h>

/* Note [Which root a source file is shown under]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * DWARF gives a unit's name and file names as the compiler saw them, often
 * relative to the build directory (DW_AT_comp_dir): an out-of-tree build
 * names `../rts/StgInfo.c`, which means nothing to a reader.  The path is
 * first made whole (comp_dir/name, `..` removed), then shown relative to
 *   1. the runtime's source tree (STRATA_SRCDIR, fixed at configure time),
 *      for the runtime's own files -- and for anything else built inside
 *      that tree, such as the examples and tests -- whatever the build
 *      layout, installed library included: `rts/StgInfo.c`;
 *   2. else the unit's build directory, when the file lies under it: a
 *      program built where its sources are (`cc -g prog.c`) reads
 *      `prog.c`, as GHC's IPE names a file relative to where ghc ran;
 *   3. else nothing: the absolute path.  A program built out of tree has
 *      no root the runtime can know (its build directory is all DWARF
 *      records), and an absolute path is at least unambiguous.
 * Rejected: the longest common directory of the program's units.  A
 * program linked with libstrata mixes two trees, so that directory is
 * often `/`, and it would change with the set of units linked in: the
 * same file would read differently in two programs. */

bool source_path_normalise(const char *dir, const char *name, char *out, size_t out_len)
{
    if (out_len == 0)
        return false;
    char buf[SOURCE_PATH_MAX];
    size_t name_len = strlen(name);
    size_t len;
    if (name[0] != '/' && dir != NULL && dir[0] != '\0') {
        size_t dir_len = strlen(dir);
        if (dir_len + 1 + name_len + 1 > sizeof buf)
            return false;
        memcpy(buf, dir, dir_len);
        buf[dir_len] = '/';
        memcpy(buf + dir_len + 1, name, name_len + 1);
        len = dir_len + 1 + name_len;
    } else {
        if (name_len + 1 > sizeof buf)
            return false;
        memcpy(buf, name, name_len + 1);
        len = name_len;
    }
    /* Components are copied down over buf itself: the write position never
     * passes the read position. */
    bool absolute = buf[0] == '/';
    size_t base = absolute ? 1 : 0;   /* w never goes below base */
    size_t w = base, r = 0;
    while (r < len) {
        while (r < len && buf[r] == '/')
            r++;
        size_t start = r;
        while (r < len && buf[r] != '/')
            r++;
        size_t n = r - start;
        if (n == 0 || (n == 1 && buf[start] == '.'))
            continue;
        if (n == 2 && buf[start] == '.' && buf[start + 1] == '.') {
            size_t last = w;   /* start of the last component written */
            while (last > base && buf[last - 1] != '/')
                last--;
            bool last_is_up = w - last == 2 && buf[last] == '.' && buf[last + 1] == '.';
            if (w > base && !last_is_up) {
                w = last > base ? last - 1 : base;   /* drop "/component" */
                continue;
            }
            if (absolute)
                continue;   /* /.. is / */
        }
        if (w > base)
            buf[w++] = '/';
        memmove(buf + w, buf + start, n);
        w += n;
    }
    if (w == 0)
        buf[w++] = '.';
    if (w + 1 > out_len)
        return false;
    memcpy(out, buf, w);
    out[w] = '\0';
    return true;
}

const char *source_path_runtime_root(void)
{
    return STRATA_SRCDIR;
}

/* path relative to root (both normalised) if it lies strictly under it. */
static const char *under(const char *path, const char *root)
{
    if (root[0] != '/' || path[0] != '/')
        return NULL;
    if (root[1] == '\0')
        return path[1] != '\0' ? path + 1 : NULL;
    size_t n = strlen(root);
    if (strncmp(path, root, n) == 0 && path[n] == '/' && path[n + 1] != '\0')
        return path + n + 1;
    return NULL;
}

const char *source_path_show(const char *root, const char *comp_dir, const char *name,
                             char *out, size_t out_len)
{
    if (!source_path_normalise(comp_dir, name, out, out_len))
        return name;
    char dir[SOURCE_PATH_MAX];
    const char *rel;
    if (root != NULL && source_path_normalise(NULL, root, dir, sizeof dir) &&
        (rel = under(out, dir)) != NULL)
        return rel;
    if (comp_dir != NULL && source_path_normalise(NULL, comp_dir, dir, sizeof dir) &&
        (rel = under(out, dir)) != NULL)
        return rel;
    return out;
}
