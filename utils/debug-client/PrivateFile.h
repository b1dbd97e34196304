/*
 * utils/debug-client/PrivateFile.h -- creating the files that hold heap
 * contents so that only their owner can read them (Note [Files with heap
 * contents] in PrivateFile.c).  The whole API of PrivateFile.c.
 */
#ifndef STRATA_DEBUG_PRIVATE_FILE_H
#define STRATA_DEBUG_PRIVATE_FILE_H

#include <stddef.h>

/* Opens path for writing a file that will hold heap contents (a snapshot,
 * a GML graph): created mode 0600 whatever the umask, an existing file of
 * ours made 0600 and emptied.  Refused, with a message naming path in
 * err, if path is a symbolic link, not a regular file, or another user's
 * file (which is left untouched).  Returns the descriptor, or -1.  See
 * Note [Files with heap contents] in PrivateFile.c. */
int dbg_create_private(const char *path, char *err, size_t err_len);
/* The same checks for a path about to be replaced by rename: 0 if it does
 * not exist or is a regular file of ours, else -1 with the message. */
int dbg_check_private_path(const char *path, char *err, size_t err_len);

#endif /* STRATA_DEBUG_PRIVATE_FILE_H */
