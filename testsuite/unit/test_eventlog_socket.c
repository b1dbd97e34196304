/*
 * testsuite/unit/test_eventlog_socket.c -- the eventlog socket writer
 * (eventlog/EventLogSocket.c) driven directly: a client that reads keeps
 * up with a writer that hands over many small blocks, each of which wakes
 * the socket thread.  A lost wake-up leaves the bytes queued while the
 * thread sleeps in poll, which only the writer's close would end.
 */
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "EventLogSocket.h"
#include "strata/EventLogFormat.h"

#define N_ROUNDS 20
#define N_BLOCKS 50000
#define MARKER_BYTES 24   /* header (type, time) + block size, end time, cap */

typedef struct {
    int fd;
    atomic_ullong got;
} Reader;

static void *read_all(void *arg)
{
    Reader *r = arg;
    char buf[65536];
    for (;;) {
        ssize_t n = recv(r->fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        atomic_fetch_add(&r->got, (unsigned long long)n);
    }
    return NULL;
}

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* A block of the global buffer with nothing after its marker. */
static void make_block(uint8_t *b, uint64_t t)
{
    put_be(b, EVENT_BLOCK_MARKER, 2);
    put_be(b + 2, t, 8);
    put_be(b + 10, MARKER_BYTES, 4);
    put_be(b + 14, t, 8);
    put_be(b + 22, EVENT_CAP_GLOBAL, 2);
}

static void test_socket_reader_keeps_up_with_many_small_blocks(void **state)
{
    (void)state;
    char path[108];
    snprintf(path, sizeof path, "/tmp/strata-test-evsock-%d.sock", (int)getpid());
    EventLogSocketConfig cfg = {.unix_path = path};
    assert_true(eventlog_socket_open(&cfg, NULL));
    assert_true(eventlog_socket_writer.init());

    Reader r = {.fd = socket(AF_UNIX, SOCK_STREAM, 0)};
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    assert_int_equal(connect(r.fd, (struct sockaddr *)&a, sizeof a), 0);
    /* Accepted before the header: the client then gets every byte. */
    EventLogSocketStats st;
    for (int i = 0; i < 2000; i++) {
        eventlog_socket_get_stats(&st);
        if (st.clients == 1)
            break;
        usleep(1000);
    }
    assert_int_equal(st.clients, 1);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, read_all, &r), 0);

    static const uint8_t header[16] = "not-a-real-hdr";
    assert_true(eventlog_socket_writer.write(header, sizeof header));
    unsigned long long want = sizeof header;
    uint8_t block[MARKER_BYTES];
    /* Rounds, each ending with the writer quiet: then nothing wakes the
     * thread but the bytes already queued, and every one must arrive
     * while the writer is still open.  (20 s is a hang guard, not a
     * timing: a round takes milliseconds.) */
    for (int round = 0; round < N_ROUNDS; round++) {
        for (uint64_t i = 0; i < N_BLOCKS; i++) {
            make_block(block, i);
            assert_true(eventlog_socket_writer.write(block, sizeof block));
        }
        want += (unsigned long long)N_BLOCKS * MARKER_BYTES;
        unsigned long long got = 0;
        for (int i = 0; i < 20000 && (got = atomic_load(&r.got)) < want; i++)
            usleep(1000);
        assert_int_equal(got, want);
    }
    eventlog_socket_get_stats(&st);
    assert_int_equal(st.dropped_bytes, 0);

    eventlog_socket_writer.stop();
    pthread_join(t, NULL);
    close(r.fd);
    assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_socket_reader_keeps_up_with_many_small_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
