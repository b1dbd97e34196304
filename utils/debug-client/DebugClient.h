/*
 * utils/debug-client/DebugClient.h -- the heap debugger's client library:
 * one API over a live program's debug socket or a snapshot file.  Blocks
 * are fetched once and cached; closures are decoded with their info
 * tables.  The analyses (census, retainer paths, fragmentation, thunks,
 * duplicates, GML, snapshots) are in DebugAnalysis.h.  strata-debug and
 * the terminal UI (issue 9) are built on it.  See docs/strata-debug.md and
 * docs/debug-protocol.md.
 *
 * Functions returning int give 0 on success and -1 on failure, with the
 * message in dbg_error(c).  Strings and arrays the library returns stay
 * valid until dbg_close.
 */
#ifndef STRATA_DEBUGCLIENT_H
#define STRATA_DEBUGCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct DbgClient DbgClient;

/* What the program told us (VERSION), or what the snapshot recorded. */
typedef struct {
    uint32_t protocol, word_size, block_size, mblock_size, pid;
    bool paused;
    uint64_t era;                /* current era when paused */
    uint64_t n_mblocks;          /* megablocks held by the block allocator */
    uint64_t paused_at;          /* when the pause began, Unix time in ns (the
                                  * client's clock); 0 when unknown (a
                                  * snapshot of format version 1) */
    uint64_t resumes_in_era;     /* the era the program resumes in, when a
                                  * new era was asked for in this pause
                                  * (dbg_new_era, snapshot --new-era); 0 if
                                  * none was (or a snapshot before version 3) */
    char *program, *strata_version;
} DbgTarget;

typedef struct {
    uint64_t start;              /* first byte of the block (group) */
    uint64_t era;
    uint64_t used_bytes;         /* [start, start + used_bytes) holds objects */
    uint32_t n_blocks;           /* blocks in the group */
    uint16_t flags;              /* BF_* of strata/Block.h */
    uint16_t gen;
    uint8_t kind;                /* DEBUG_BLOCK_* of strata/Debug.h */
    const uint8_t *data;         /* cached contents, NULL until fetched */
} DbgBlock;

typedef struct {
    uint8_t kind;                /* DEBUG_ROOT_* */
    uint32_t index;              /* frame number (0 = newest), stable ptr, ... */
    uint32_t slot;               /* slot in the frame */
    uint64_t addr;               /* the closure the root holds */
    const char *func, *file;     /* frames: who pushed it; statics: the closure's
                                  * symbol and its definition's file (from the
                                  * program's symbol table); "" otherwise or unknown */
    uint32_t line;
    uint32_t thread;             /* frames: the id of the thread that pushed
                                    them (0 if the stub did not say) */
} DbgRoot;

typedef struct {
    uint64_t addr;
    uint32_t type;               /* closure type (strata/ClosureTypes.h) */
    uint16_t ptrs, nptrs;
    uint32_t arity;
    uint8_t prov_source;         /* DEBUG_PROV_* */
    const char *name;
    const char *table_name, *closure_desc, *ty_desc, *label, *module, *src_file, *src_span;
} DbgInfo;

/* A decoded closure. */
typedef struct {
    uint64_t addr;
    const uint64_t *words;       /* n_words words, word 0 the info pointer */
    uint32_t n_words;
    const DbgInfo *info;
    const DbgBlock *block;       /* NULL for a static closure */
    uint64_t era;                /* the block's era; 0 for statics */
} DbgClosure;

/* ----- Opening and closing ----- */

/* Connects to a live program (then call dbg_pause before reading the heap).
 * NULL on failure, with the message in err. */
DbgClient *dbg_connect(const char *socket_path, char *err, size_t err_len);
/* Opens a snapshot written by dbg_write_snapshot. */
DbgClient *dbg_open_snapshot(const char *file, char *err, size_t err_len);
/* The same from the len bytes of a snapshot file in memory (name is for
 * messages); the client keeps no pointer into data. */
DbgClient *dbg_open_snapshot_bytes(const uint8_t *data, size_t len, const char *name, char *err,
                                   size_t err_len);
/* Closes; a live program we paused is resumed. */
void dbg_close(DbgClient *c);

const char *dbg_error(const DbgClient *c);
bool dbg_is_snapshot(const DbgClient *c);
const DbgTarget *dbg_target(DbgClient *c);

/* ----- Live control (a snapshot is always "paused") ----- */
int dbg_pause(DbgClient *c, uint32_t timeout_ms, uint64_t *latency_ns);
int dbg_resume(DbgClient *c);
/* Asks the paused program to start a new era as it resumes (NEW_ERA; see
 * Note [A new era on resume] in rts/debug/DebugServer.c): everything it
 * allocates from then on is of a later era than dbg_target's.  *era is the
 * era it resumes in.  Refused on a snapshot. */
int dbg_new_era(DbgClient *c, uint64_t *era);

/* ----- The heap ----- */
int dbg_blocks(DbgClient *c, const DbgBlock **blocks, size_t *n);
int dbg_roots(DbgClient *c, const DbgRoot **roots, size_t *n);
/* The static-closure root that names the static closure at addr (its
 * symbol in func), or NULL: not a root, or the program has no symbol for
 * it.  Fetches the roots if need be. */
const DbgRoot *dbg_static_root(DbgClient *c, uint64_t addr);
/* A static root's name for people: "session_cache (examples/leak.c:41)",
 * "sym (file)" or "sym" as far as the symbol table knows; "" for an
 * unnamed static, a root of another kind, or NULL. */
void dbg_static_root_name(const DbgRoot *r, char *buf, size_t len);
/* Fetches every block's contents in one stream (a full analysis calls this
 * first); later reads hit the cache. */
int dbg_load_all(DbgClient *c);
/* The block whose used area holds addr, or NULL. */
const DbgBlock *dbg_block_of(DbgClient *c, uint64_t addr);
/* The contents of a block (fetched once). */
const uint8_t *dbg_block_data(DbgClient *c, const DbgBlock *b);
const DbgInfo *dbg_info(DbgClient *c, uint64_t addr);
/* Decodes the closure at addr (heap or static). */
int dbg_closure(DbgClient *c, uint64_t addr, DbgClosure *out);
/* The pointer fields of a closure (non-NULL values only), at most cap of
 * them into out; returns how many there are. */
size_t dbg_closure_ptrs(DbgClient *c, const DbgClosure *cl, uint64_t *out, size_t cap);
/* The pointer fields of a closure, all of them, into *ptrs: a buffer of
 * the caller's of *cap entries (NULL and 0 to start; free() it at the
 * end), grown with realloc when the closure has more; *n says how many.
 * Returns 0, or -1 when out of C heap (not said: the caller says what it
 * was doing). */
static inline int dbg_closure_ptrs_grow(DbgClient *c, const DbgClosure *cl, uint64_t **ptrs,
                                        size_t *cap, size_t *n)
{
    /* Inline: the traversals call it for every object. */
    *n = dbg_closure_ptrs(c, cl, *ptrs, *cap);
    if (*n <= *cap)
        return 0;
    uint64_t *g = realloc(*ptrs, *n * sizeof *g);
    if (g == NULL)
        return -1;
    *ptrs = g;
    *cap = *n;
    dbg_closure_ptrs(c, cl, *ptrs, *cap);
    return 0;
}
/* Every word of a closure (word 0 is the info pointer) and whether it is
 * a pointer field, at most cap of them; returns the closure's word count.
 * For the TUI's field view. */
typedef struct {
    uint32_t index;              /* word index in the closure */
    bool is_ptr;
    uint64_t value;
} DbgField;
size_t dbg_closure_fields(DbgClient *c, const DbgClosure *cl, DbgField *out, size_t cap);
/* Calls f on every object in block b, in address order (f returns false to
 * stop).  Returns -1 if the block holds something undecodable. */
int dbg_block_objects(DbgClient *c, const DbgBlock *b,
                      bool (*f)(DbgClient *c, const DbgClosure *cl, void *env), void *env);

/* ----- Files holding heap contents ----- */

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

/* ----- Names ----- */
const char *dbg_closure_type_name(uint32_t type);
/* A closure's -hT label: constructors by name, others by closure type. */
const char *dbg_type_label(const DbgInfo *info);
const char *dbg_root_kind_name(uint8_t kind);
const char *dbg_block_kind_name(uint8_t kind);
/* A closure type by name (e.g. "THUNK_1_0"); -1 if none. */
int dbg_closure_type_by_name(const char *name);
bool dbg_type_is_thunk(uint32_t type);
bool dbg_type_is_constr(uint32_t type);

#endif /* STRATA_DEBUGCLIENT_H */
