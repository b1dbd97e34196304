/*
 * testsuite/fuzz/replay.c -- replays a fuzz corpus without libFuzzer: calls
 * the target's LLVMFuzzerTestOneInput on every file named, or in each
 * directory named (in name order), once.  Linked with one fuzz_*.c, it
 * builds under any C compiler, so make check replays the committed corpora
 * (testsuite/fuzz/corpus/<target>/) in the release, sanitizer and debug
 * builds (testsuite/scripts/fuzz-corpus.sh).  A target reports a bad
 * input by aborting; the last "replay: FILE" line names it.  Exits 1 if
 * an input cannot be read or nothing was replayed.
 *
 *   replay_<target> DIR|FILE...
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: %s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *grown = realloc(data, cap);
            if (grown == NULL) {
                fprintf(stderr, "replay: %s: out of memory (bytes=%zu)\n", path, cap);
                free(data);
                fclose(f);
                return -1;
            }
            data = grown;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: %s: read error\n", path);
        free(data);
        return -1;
    }
    printf("replay: %s (%zu bytes)\n", path, len);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file in dir; returns how many, or -1. */
static long replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "replay: %s: cannot open: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    long done = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (grown == NULL)
                break;
            names = grown;
        }
        size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        if ((names[n] = malloc(len)) == NULL)
            break;
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 0)   /* qsort may not be given NULL, even for nothing */
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (done >= 0)
            done = replay_file(names[i]) == 0 ? done + 1 : -1;
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        long n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) == 0 ? 1 : -1;
        if (n < 0)
            return 1;
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "replay: no inputs (usage: %s DIR|FILE...)\n", argv[0]);
        return 1;
    }
    printf("replay: %ld inputs, none failed\n", total);
    return 0;
}
