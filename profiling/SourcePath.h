/*
 * profiling/SourcePath.h -- the name provenance shows for a source file
 * that DWARF names: the compilation unit's directory joined with the name,
 * `.` and `..` removed without touching the file system, then made
 * relative to the source root it lies under (the runtime's own source tree,
 * else the unit's build directory), or left absolute.  See "Source file
 * names" in docs/design/provenance.md.
 */
#ifndef STRATA_SOURCE_PATH_H
#define STRATA_SOURCE_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Longest name the functions below produce (bytes, NUL included). */
#define SOURCE_PATH_MAX 4096

/* Writes dir/name (name alone if it is absolute or dir is NULL) to
 * out[out_len] with empty and `.` components dropped and each `..` taking
 * away the component before it (lexically: symbolic links are not
 * followed).  A relative result keeps its leading `..`s; an empty one is
 * ".".  False, with out untouched, if the result would not fit. */
bool source_path_normalise(const char *dir, const char *name, char *out, size_t out_len);

/* The runtime's own source tree, as configure saw it (STRATA_SRCDIR). */
const char *source_path_runtime_root(void);

/* The name to show for file name of a unit built in comp_dir (either may
 * be relative; comp_dir may be NULL): the normalised path relative to root
 * if under it, else relative to comp_dir if under it, else the normalised
 * path itself (absolute when comp_dir or name is).  root may be NULL.  The
 * result points into out[out_len], or is name itself when the path would
 * not fit. */
const char *source_path_show(const char *root, const char *comp_dir, const char *name,
                             char *out, size_t out_len);

#endif /* STRATA_SOURCE_PATH_H */
