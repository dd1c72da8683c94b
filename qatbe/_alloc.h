/* The compiled core's allocator: malloc, calloc, realloc and free for its own scratch buffers (``_core.pyx``
   takes these names for them), with freed blocks of up to 128 KB kept per thread for the next request of their
   size.

   Why: scoring a page allocates and frees the same few dozen buffers on every call (each read's hash table
   and token lists, the page's rows, the bridges' per-segment arrays), and glibc sends every block over 1 KB
   through its bins, consolidating its small free blocks first, a cost paid on every call; a block from this
   cache is a list pop. No block leaves the core
   (none is handed to numpy or Python), so nothing else frees one.

   A block starts with a 16-byte header (its size class and the size asked for), which keeps the block 16-byte
   aligned as malloc's are. Size classes are powers of two from 64 bytes to QATBE_MAX_CLASS; a larger block is
   allocated at its exact size, straight from malloc, and never kept. A thread keeps at most QATBE_KEEP blocks a
   class (about 1 MB in all) and frees them when it ends. Without GCC-style thread-local storage nothing is
   kept. */
#ifndef QATBE_ALLOC_H
#define QATBE_ALLOC_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#include <pthread.h>
#define QATBE_CACHE 1
#else
#define QATBE_CACHE 0
#endif

#define QATBE_MIN_CLASS 6   /* 64 bytes */
#define QATBE_MAX_CLASS 17  /* 128 KB */
#define QATBE_KEEP 4
#define QATBE_EXACT 0       /* the class of a block allocated at its exact size */

typedef struct { size_t cls; size_t size; } qatbe_head;

#if QATBE_CACHE
static size_t qatbe_kept_all = 0;  /* bytes kept by every thread (atomic) */
static __thread void* qatbe_kept[QATBE_MAX_CLASS + 1][QATBE_KEEP];
static __thread int qatbe_n_kept[QATBE_MAX_CLASS + 1];
static __thread size_t qatbe_kept_here = 0;
static __thread int qatbe_registered = 0;
static pthread_key_t qatbe_key;
static pthread_once_t qatbe_once = PTHREAD_ONCE_INIT;
static int qatbe_key_made = 0;

/* A thread's kept blocks, freed when it ends (a pthread key's destructor; thread-local storage is still there). */
static void qatbe_drop(void* unused) {
    int c, k;
    (void) unused;
    for (c = 0; c <= QATBE_MAX_CLASS; c++) {
        for (k = 0; k < qatbe_n_kept[c]; k++) free(qatbe_kept[c][k]);
        qatbe_n_kept[c] = 0;
    }
    __atomic_sub_fetch(&qatbe_kept_all, qatbe_kept_here, __ATOMIC_RELAXED);
    qatbe_kept_here = 0;
}

static void qatbe_make_key(void) { qatbe_key_made = pthread_key_create(&qatbe_key, qatbe_drop) == 0; }

/* Whether this thread may keep blocks: once its key is set, so that qatbe_drop runs when it ends. */
static int qatbe_may_keep(void) {
    if (!qatbe_registered) {
        pthread_once(&qatbe_once, qatbe_make_key);
        if (!qatbe_key_made || pthread_setspecific(qatbe_key, (void*) 1) != 0) return 0;
        qatbe_registered = 1;
    }
    return 1;
}
#endif

static inline size_t qatbe_class(size_t total) {
    size_t c = QATBE_MIN_CLASS;
    while (((size_t) 1 << c) < total) c++;
    return c;
}

static void* qatbe_malloc(size_t n) {
    size_t total = n + sizeof(qatbe_head), c;
    qatbe_head* h;
    if (total < n) return NULL;
    c = total <= ((size_t) 1 << QATBE_MAX_CLASS) ? qatbe_class(total) : QATBE_EXACT;
#if QATBE_CACHE
    if (c != QATBE_EXACT && qatbe_n_kept[c] > 0) {
        h = (qatbe_head*) qatbe_kept[c][--qatbe_n_kept[c]];
        qatbe_kept_here -= (size_t) 1 << c;
        __atomic_sub_fetch(&qatbe_kept_all, (size_t) 1 << c, __ATOMIC_RELAXED);
        h->size = n;
        return h + 1;
    }
#endif
    h = (qatbe_head*) malloc(c == QATBE_EXACT ? total : (size_t) 1 << c);
    if (h == NULL) return NULL;
    h->cls = c;
    h->size = n;
    return h + 1;
}

static void qatbe_free(void* p) {
    qatbe_head* h;
    if (p == NULL) return;
    h = (qatbe_head*) p - 1;
#if QATBE_CACHE
    if (h->cls != QATBE_EXACT && qatbe_n_kept[h->cls] < QATBE_KEEP && qatbe_may_keep()) {
        qatbe_kept[h->cls][qatbe_n_kept[h->cls]++] = h;
        qatbe_kept_here += (size_t) 1 << h->cls;
        __atomic_add_fetch(&qatbe_kept_all, (size_t) 1 << h->cls, __ATOMIC_RELAXED);
        return;
    }
#endif
    free(h);
}

static void* qatbe_calloc(size_t count, size_t item) {
    size_t n;
    qatbe_head* h;
    void* p;
    if (item && count > SIZE_MAX / item) return NULL;
    n = count * item;
    if (n + sizeof(qatbe_head) < n) return NULL;
    if (n + sizeof(qatbe_head) > ((size_t) 1 << QATBE_MAX_CLASS)) {
        /* not kept: calloc's own zeroing (fresh pages from the system need none) */
        h = (qatbe_head*) calloc(1, n + sizeof(qatbe_head));
        if (h == NULL) return NULL;
        h->cls = QATBE_EXACT;
        h->size = n;
        return h + 1;
    }
    p = qatbe_malloc(n);
    if (p != NULL) memset(p, 0, n);
    return p;
}

static void* qatbe_realloc(void* p, size_t n) {
    qatbe_head* h;
    void* q;
    if (p == NULL) return qatbe_malloc(n);
    h = (qatbe_head*) p - 1;
    if (h->cls != QATBE_EXACT && n + sizeof(qatbe_head) <= ((size_t) 1 << h->cls)) {
        h->size = n;  /* still fits its class */
        return p;
    }
    if (h->cls == QATBE_EXACT && n + sizeof(qatbe_head) > ((size_t) 1 << QATBE_MAX_CLASS)) {
        /* large to large: malloc's realloc, which may grow in place */
        if (n + sizeof(qatbe_head) < n) return NULL;
        h = (qatbe_head*) realloc(h, n + sizeof(qatbe_head));
        if (h == NULL) return NULL;
        h->size = n;
        return h + 1;
    }
    q = qatbe_malloc(n);
    if (q == NULL) return NULL;
    memcpy(q, p, h->size < n ? h->size : n);
    qatbe_free(p);
    return q;
}

/* Bytes kept for reuse: by this thread, or (``all``) by every thread. */
static size_t qatbe_kept_bytes(int all) {
#if QATBE_CACHE
    return all ? __atomic_load_n(&qatbe_kept_all, __ATOMIC_RELAXED) : qatbe_kept_here;
#else
    (void) all;
    return 0;
#endif
}
#endif
