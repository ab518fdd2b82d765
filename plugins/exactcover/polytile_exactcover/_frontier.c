/* Counting exact covers by a frontier (broken-profile) scan, in C.
 *
 * The items are put in a scan order: first the cells (positions 0..K-1), then up to 64
 * "tail" items (a piece used exactly once).  The scan fills the first empty cell, so
 * every state of layer i has the cells before i covered, and the state is
 *   (window: which of the cells i, i+1, ... i+63 are covered,
 *    tail: which tail items are covered,
 *    totals: how many copies of each counted piece are placed, packed into 64 bits).
 * Layer i+1 is built from layer i alone (forward, like a transfer matrix), so the table
 * holds two layers at a time; a state's count is the number of ways to reach it.  The
 * counts of the pieces with more than one copy live in the state, truncated where
 * they no longer matter: at the upper bound (a placement past it is refused) or, for
 * a piece without an upper bound, saturated at its lower bound.
 *
 * Counts are unsigned 128-bit integers; an addition that would overflow stops the scan
 * with status "overflow" (the caller then counts with Python's integers).  The scan
 * stops with status "budget" when a layer passes ``budget`` states.
 *
 * Two checks drop states no tiling can finish (frontier.py finds their data; neither can
 * change a count): a colouring invariant of the pieces with few copies (good_has), and
 * closed pockets of uncovered cells no set of pieces can fill (pockets_ok).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_cover_input.h"

typedef unsigned __int128 u128;

enum { DONE = 0, CANCELLED = 1, TIMED_OUT = 2, BUDGET = 3, OVERFLOW = 4, NO_MEMORY = 5 };

/* 48 bytes: the count is aligned to 8, not 16 (x86-64 and arm64 read it either way), so
 * that the table, whose reads wait on memory, is a quarter smaller. */
typedef struct __attribute__((packed, aligned(8))) {
    uint64_t window, tail, totals;
    uint64_t value;         /* the colouring invariant of the covered cells (a function of the key) */
    u128 count;
} Entry;

typedef struct {
    Entry *entries;
    size_t used, room;
    uint32_t *index;        /* entry number + 1, 0 = empty */
    size_t capacity;        /* a power of two */
} Layer;

typedef struct {
    PyObject_HEAD
    int n_cells, n_groups;
    uint64_t tail_full;
    int *first;                          /* options starting at cell i: first[i] .. first[i+1]-1 */
    uint64_t *window, *tail;
    int *member_start, *member_group;    /* option -> its (group, weight) pairs */
    uint64_t *member_weight;
    uint64_t *lo, *hi, *shift, *field;   /* per group; hi = 0 means no upper bound */
    /* Pruning by a colouring invariant (frontier.py): an option with other[o] set places a
     * piece with few copies and adds rho[o] to the state's value; the state is kept only if
     * (its tail & other_tail, totals & other_totals, region - value) is in the good set. */
    char *other;
    uint64_t *rho, region, other_tail, other_totals;
    uint64_t *good;                      /* fingerprints, 0 = empty slot */
    size_t good_capacity;
    /* Pockets (frontier.py): the 4-neighbours of cell p are near[near_start[p] ..
     * near_start[p + 1]); a closed pocket of uncovered cells must hold a multiple of
     * ``unit`` cells, at least ``smallest``; unit = 0: no check.  Cells from ``reach``
     * on in a window are never covered yet. */
    int *near_start, *near, unit, smallest, reach;
    int *border_start, *border;          /* per option, the cells next to it */
    volatile int cancel;
    size_t peak_states, peak_bytes;
} Frontier;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline uint64_t mix(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL ^ c * 0x165667B19E3779F9ULL;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

static void layer_free(Layer *l) { free(l->entries); free(l->index); memset(l, 0, sizeof *l); }

static size_t layer_bytes(const Layer *l) { return l->room * sizeof(Entry) + l->capacity * sizeof(uint32_t); }

static int layer_grow(Layer *l) {
    size_t capacity = l->capacity ? 2 * l->capacity : 1024;
    uint32_t *index = calloc(capacity, sizeof(uint32_t));
    if (index == NULL) return -1;
    for (size_t k = 0; k < l->used; k++) {
        Entry *e = &l->entries[k];
        size_t slot = mix(e->window, e->tail, e->totals) & (capacity - 1);
        while (index[slot]) slot = (slot + 1) & (capacity - 1);
        index[slot] = (uint32_t)(k + 1);
    }
    free(l->index);
    l->index = index;
    l->capacity = capacity;
    return 0;
}

static int pockets_ok(const Frontier *s, int o, int layer, uint64_t window, uint64_t tail, uint64_t totals);

/* Adds ``count`` to the state; returns a status other than DONE on failure.  With
 * ``check``, a new state with a pocket no pieces can fill is kept with count 0 (dead: a
 * live state never has count 0), so that reaching it again costs one look-up. */
static int layer_add(Layer *l, uint64_t window, uint64_t tail, uint64_t totals, uint64_t value, u128 count,
                     const Frontier *check, int o, int layer) {
    if (2 * (l->used + 1) > l->capacity && layer_grow(l)) return NO_MEMORY;
    size_t mask = l->capacity - 1, slot = mix(window, tail, totals) & mask;
    for (; l->index[slot]; slot = (slot + 1) & mask) {
        Entry *e = &l->entries[l->index[slot] - 1];
        if (e->window == window && e->tail == tail && e->totals == totals) {
            if (e->count == 0) return DONE;
            u128 sum = e->count + count;
            if (sum < count) return OVERFLOW;
            e->count = sum;
            return DONE;
        }
    }
    if (l->used == l->room) {
        size_t room = l->room ? 2 * l->room : 1024;
        Entry *entries = realloc(l->entries, room * sizeof(Entry));
        if (entries == NULL) return NO_MEMORY;
        l->entries = entries;
        l->room = room;
    }
    if (l->used >= 0xFFFFFFF0u) return NO_MEMORY;
    if (check && !pockets_ok(check, o, layer, window, tail, totals)) count = 0;
    Entry *e = &l->entries[l->used++];
    e->window = window; e->tail = tail; e->totals = totals; e->value = value; e->count = count;
    l->index[slot] = (uint32_t)l->used;
    return DONE;
}

static void layer_clear(Layer *l) {
    if (l->used) memset(l->index, 0, l->capacity * sizeof(uint32_t));
    l->used = 0;
}

/* The totals after adding option o, or 0 with *ok = 0 when a group would pass its bound. */
static inline uint64_t moved(const Frontier *s, int o, uint64_t totals, int *ok) {
    for (int k = s->member_start[o]; k < s->member_start[o + 1]; k++) {
        int g = s->member_group[k];
        uint64_t value = ((totals >> s->shift[g]) & s->field[g]) + s->member_weight[k];
        if (s->hi[g]) {
            if (value > s->hi[g]) { *ok = 0; return 0; }
        } else if (value > s->lo[g]) {
            value = s->lo[g];
        }
        totals = (totals & ~(s->field[g] << s->shift[g])) | (value << s->shift[g]);
    }
    *ok = 1;
    return totals;
}

/* A fingerprint of (pieces placed, value needed); 0 is kept for empty slots.  Two keys
 * sharing a fingerprint only keep a state that could have been pruned: never a wrong count. */
static inline uint64_t fingerprint(uint64_t tail, uint64_t totals, uint64_t needed) {
    uint64_t h = mix(tail, totals, needed);
    return h ? h : 1;
}

static int good_has(const Frontier *s, uint64_t tail, uint64_t totals, uint64_t needed) {
    uint64_t h = fingerprint(tail, totals, needed);
    size_t mask = s->good_capacity - 1;
    for (size_t slot = h & mask; s->good[slot]; slot = (slot + 1) & mask)
        if (s->good[slot] == h) return 1;
    return 0;
}

/* Whether the state (layer, window) just made by option o closed no pocket of uncovered
 * cells that no set of pieces can fill.  A new pocket touches the new piece: each
 * uncovered cell next to it is flooded through uncovered cells, giving up (no pocket)
 * past POCKET_CELLS cells or on reaching a cell at or past ``reach``. */
enum { POCKET_CELLS = 16 };

static inline uint64_t moved(const Frontier *s, int o, uint64_t totals, int *ok);

/* Whether some option not yet ruled out covers exactly the pocket (cells of the window). */
static int fits_exactly(const Frontier *s, int layer, uint64_t pocket, uint64_t tail, uint64_t totals) {
    int first = layer + __builtin_ctzll(pocket);
    uint64_t shape = pocket >> __builtin_ctzll(pocket);
    for (int o = s->first[first]; o < s->first[first + 1]; o++) {
        int ok;
        if (s->window[o] != shape || (s->tail[o] & tail)) continue;
        moved(s, o, totals, &ok);
        if (ok) return 1;
    }
    return 0;
}

static int pockets_ok(const Frontier *s, int o, int layer, uint64_t window, uint64_t tail, uint64_t totals) {
    int room = s->n_cells - layer < s->reach ? s->n_cells - layer : s->reach;
    uint64_t seen = 0;
    for (int b = s->border_start[o]; b < s->border_start[o + 1]; b++) {
        int j = s->border[b] - layer;
        if (j < 0 || j >= room || ((window | seen) >> j & 1)) continue;
        uint64_t part = 1ULL << j, grow = part;
        int open = 0;
        while (grow && !open) {
            uint64_t more = 0;
            for (uint64_t todo = grow; todo && !open; todo &= todo - 1) {
                int p = layer + __builtin_ctzll(todo);
                for (int k = s->near_start[p]; k < s->near_start[p + 1]; k++) {
                    int q = s->near[k] - layer;
                    if (q >= room) open = 1;
                    else if (q >= 0) more |= (1ULL << q) & ~window & ~part;
                }
            }
            part |= more;
            grow = more;
            if (__builtin_popcountll(part) > POCKET_CELLS) open = 1;
        }
        seen |= part;
        if (!open) {
            /* A pocket smaller than two pieces takes exactly one. */
            int size = __builtin_popcountll(part);
            if (size % s->unit || size < s->smallest) return 0;
            if (size < 2 * s->smallest && !fits_exactly(s, layer, part, tail, totals)) return 0;
        }
    }
    return 1;
}

/* States waiting to be added to the next layer: their index slots, then the entries
 * those point to, are fetched from memory for a whole batch before any is added (the
 * table is most of the scan's time, and its look-ups are cache misses). */
typedef struct {
    uint64_t window, tail, totals, value;
    u128 count;
    int option, check;
} Pending;

enum { BATCH = 32 };  /* plus room for every successor of one state */

static int flush(const Frontier *s, Layer *next, Pending *pending, int *waiting, int layer) {
    if (next->capacity) {
        size_t mask = next->capacity - 1;
        for (int k = 0; k < *waiting; k++)
            __builtin_prefetch(&next->index[mix(pending[k].window, pending[k].tail, pending[k].totals) & mask]);
        for (int k = 0; k < *waiting; k++) {
            uint32_t at = next->index[mix(pending[k].window, pending[k].tail, pending[k].totals) & mask];
            if (at) __builtin_prefetch(&next->entries[at - 1]);
        }
    }
    int status = DONE;
    for (int k = 0; status == DONE && k < *waiting; k++) {
        Pending *p = &pending[k];
        status = layer_add(next, p->window, p->tail, p->totals, p->value, p->count, p->check ? s : NULL, p->option,
                           layer);
    }
    *waiting = 0;
    return status;
}

/* Adds to ``total`` the counts of the last layer's finished states: every cell and tail
 * item covered, every piece placed at least its lower bound times. */
static int add_finished(const Frontier *s, const Layer *last, u128 *total) {
    for (size_t k = 0; k < last->used; k++) {
        const Entry *e = &last->entries[k];
        if (e->window || e->tail != s->tail_full) continue;
        int enough = 1;
        for (int g = 0; enough && g < s->n_groups; g++)
            enough = ((e->totals >> s->shift[g]) & s->field[g]) >= s->lo[g];
        if (!enough) continue;
        u128 sum = *total + e->count;
        if (sum < *total) return OVERFLOW;
        *total = sum;
    }
    return DONE;
}

static int scan(Frontier *s, double deadline, size_t budget, u128 *total) {
    Layer layers[2];
    memset(layers, 0, sizeof layers);
    Layer *cur = &layers[0], *next = &layers[1];
    int status = layer_add(cur, 0, 0, 0, 0, 1, NULL, 0, 0);
    unsigned long work = 0;
    int most = 0, waiting = 0;
    for (int i = 0; i < s->n_cells; i++)
        if (s->first[i + 1] - s->first[i] > most) most = s->first[i + 1] - s->first[i];
    int room = BATCH + most + 1;
    Pending *pending = malloc(room * sizeof(Pending));
    if (pending == NULL) status = NO_MEMORY;
    for (int i = 0; status == DONE && i < s->n_cells; i++) {
        for (size_t k = 0; status == DONE && k < cur->used; k++) {
            Entry e = cur->entries[k];
            if (e.count == 0) continue;
            if (waiting + (s->first[i + 1] - s->first[i]) + 1 > room) status = flush(s, next, pending, &waiting, i + 1);
            if (e.window & 1) {
                pending[waiting++] = (Pending){e.window >> 1, e.tail, e.totals, e.value, e.count, 0, 0};
                continue;
            }
            for (int o = s->first[i]; o < s->first[i + 1]; o++) {
                if ((s->window[o] & e.window) || (s->tail[o] & e.tail)) continue;
                int ok;
                uint64_t totals = moved(s, o, e.totals, &ok);
                if (!ok) continue;
                uint64_t tail = e.tail | s->tail[o], value = e.value;
                if (s->other[o]) {
                    value += s->rho[o];
                    if (!good_has(s, tail & s->other_tail, totals & s->other_totals, s->region - value)) continue;
                }
                pending[waiting++] = (Pending){(e.window | s->window[o]) >> 1, tail, totals, value, e.count, o, s->unit != 0};
            }
            if ((++work & 4095) == 0) {
                if (s->cancel) status = CANCELLED;
                else if (deadline > 0 && now() > deadline) status = TIMED_OUT;
            }
            if (status == DONE && next->used > budget) status = BUDGET;
        }
        if (status == DONE) status = flush(s, next, pending, &waiting, i + 1);
        if (next->used > s->peak_states) s->peak_states = next->used;
        if (layer_bytes(cur) + layer_bytes(next) > s->peak_bytes) s->peak_bytes = layer_bytes(cur) + layer_bytes(next);
        layer_clear(cur);
        Layer *swap = cur; cur = next; next = swap;
    }
    *total = 0;
    if (status == DONE) status = add_finished(s, cur, total);
    free(pending);
    layer_free(&layers[0]);
    layer_free(&layers[1]);
    return status;
}

/* The scan on several threads.  Layer i+1 is split into one shard per thread by the
 * hash of the state, so that a state always lands in the same shard and each shard is
 * written by one thread.  The threads take the current layer in rounds: in phase 1 each
 * makes the successors of up to ROUND states of its own shard of layer i, into one
 * buffer per destination shard (the invariant is checked here); in phase 2 each adds the
 * buffers meant for its shard (the pocket check runs there, on new states).  Barriers
 * separate the phases; what ends the scan (a cancel, the clock, the budget, an error) is
 * read by every thread after the second barrier from flags of that round, so all threads
 * stop at the same point. */

enum { ROUND = 16384, MOST_THREADS = 64 };

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t turn;
    int waiting, parties;
    unsigned long generation;
} Barrier;

static void barrier_wait(Barrier *b) {
    pthread_mutex_lock(&b->lock);
    unsigned long generation = b->generation;
    if (++b->waiting == b->parties) {
        b->waiting = 0;
        b->generation++;
        pthread_cond_broadcast(&b->turn);
    } else {
        while (generation == b->generation) pthread_cond_wait(&b->turn, &b->lock);
    }
    pthread_mutex_unlock(&b->lock);
}

/* A successor waiting for phase 2, as small as can be (the buffers are most of the
 * memory traffic): its state's place in the current layer's shard, and the option placed
 * (-1: none, the state's first cell was covered already). */
typedef struct {
    uint32_t entry;
    int32_t option;
} Move;

typedef struct {
    Move *items;
    size_t used, room;
} Buffer;

static int buffer_push(Buffer *b, uint32_t entry, int32_t option) {
    if (b->used == b->room) {
        size_t room = b->room ? 2 * b->room : 1024;
        Move *items = realloc(b->items, room * sizeof(Move));
        if (items == NULL) return NO_MEMORY;
        b->items = items;
        b->room = room;
    }
    b->items[b->used++] = (Move){entry, option};
    return DONE;
}

/* The successor of ``e`` by option o (-1: the covered first cell passed on). */
static inline Pending successor(const Frontier *s, const Entry *e, int o) {
    if (o < 0) return (Pending){e->window >> 1, e->tail, e->totals, e->value, e->count, 0, 0};
    int ok;
    uint64_t totals = moved(s, o, e->totals, &ok), value = e->value + (s->other[o] ? s->rho[o] : 0);
    return (Pending){(e->window | s->window[o]) >> 1, e->tail | s->tail[o], totals, value, e->count, o, s->unit != 0};
}

typedef struct {
    Frontier *s;
    int threads;
    double deadline;
    size_t budget;
    Barrier barrier;
    Layer cur[MOST_THREADS], next[MOST_THREADS];
    Buffer *out;                       /* out[from * threads + to] */
    int status[2][MOST_THREADS];       /* per round parity: what each thread met */
    int more[2][MOST_THREADS];         /* per round parity: whether it has states left */
    size_t used[2][MOST_THREADS], bytes[2][MOST_THREADS];
    int outcome;                       /* the scan's status, set by thread 0 */
    pthread_mutex_t gate_lock;         /* the threads start together, or not at all */
    pthread_cond_t gate;
    int opened, go;
} Shared;

typedef struct {
    Shared *shared;
    int t;
} Worker;

static inline int shard_of(uint64_t window, uint64_t tail, uint64_t totals, int threads) {
    return (int)((mix(window, tail, totals) >> 40) % (uint64_t)threads);
}

/* Phase 1 for thread t: the successors of cur[t]'s states [*from, *from + ROUND). */
static int successors(Shared *h, int t, int i, size_t *from, unsigned long *work) {
    Frontier *s = h->s;
    Layer *cur = &h->cur[t];
    Buffer *out = &h->out[t * h->threads];
    size_t end = *from + ROUND < cur->used ? *from + ROUND : cur->used;
    int status = DONE;
    for (size_t k = *from; status == DONE && k < end; k++) {
        const Entry *e = &cur->entries[k];
        if (e->count == 0) continue;
        if (e->window & 1) {
            status = buffer_push(&out[shard_of(e->window >> 1, e->tail, e->totals, h->threads)], (uint32_t)k, -1);
            continue;
        }
        for (int o = s->first[i]; status == DONE && o < s->first[i + 1]; o++) {
            if ((s->window[o] & e->window) || (s->tail[o] & e->tail)) continue;
            int ok;
            uint64_t totals = moved(s, o, e->totals, &ok);
            if (!ok) continue;
            uint64_t tail = e->tail | s->tail[o];
            if (s->other[o]) {
                uint64_t value = e->value + s->rho[o];
                if (!good_has(s, tail & s->other_tail, totals & s->other_totals, s->region - value)) continue;
            }
            uint64_t window = (e->window | s->window[o]) >> 1;
            status = buffer_push(&out[shard_of(window, tail, totals, h->threads)], (uint32_t)k, o);
        }
        if ((++*work & 4095) == 0 && status == DONE) {
            if (s->cancel) status = CANCELLED;
            else if (h->deadline > 0 && now() > h->deadline) status = TIMED_OUT;
        }
    }
    *from = end;
    return status;
}

/* Phase 2 for thread t: every successor meant for shard t, added to next[t] a batch at a
 * time (``flush`` fetches a batch's slots before adding any). */
static int insert_shard(Shared *h, int t, int i) {
    Pending batch[BATCH];
    int status = DONE;
    for (int from = 0; from < h->threads; from++) {
        Buffer *b = &h->out[from * h->threads + t];
        const Entry *entries = h->cur[from].entries;
        for (size_t k = 0; status == DONE && k < b->used; k += BATCH) {
            int waiting = b->used - k < BATCH ? (int)(b->used - k) : BATCH;
            for (int j = 0; j < waiting; j++)
                batch[j] = successor(h->s, &entries[b->items[k + j].entry], b->items[k + j].option);
            status = flush(h->s, &h->next[t], batch, &waiting, i + 1);
        }
        b->used = 0;
    }
    return status;
}

static void *work_on(void *argument) {
    Worker *w = argument;
    Shared *h = w->shared;
    Frontier *s = h->s;
    if (w->t > 0) {
        pthread_mutex_lock(&h->gate_lock);
        while (!h->opened) pthread_cond_wait(&h->gate, &h->gate_lock);
        pthread_mutex_unlock(&h->gate_lock);
        if (!h->go) return NULL;
    }
    int t = w->t, T = h->threads, stop = 0;
    unsigned long work = 0, round = 0;
    for (int i = 0; !stop && i < s->n_cells; i++) {
        size_t from = 0;
        for (;;) {
            int parity = round++ & 1;
            int status = s->cancel ? CANCELLED : successors(h, t, i, &from, &work);
            h->more[parity][t] = from < h->cur[t].used;
            barrier_wait(&h->barrier);
            if (status == DONE) status = insert_shard(h, t, i);
            else for (int f = 0; f < T; f++) h->out[f * T + t].used = 0;
            h->status[parity][t] = status;
            h->used[parity][t] = h->next[t].used;
            h->bytes[parity][t] = layer_bytes(&h->cur[t]) + layer_bytes(&h->next[t]);
            barrier_wait(&h->barrier);
            /* Every thread reads the same flags of this round: the same decision. */
            int failed = DONE, more = 0;
            size_t states = 0, bytes = 0;
            for (int u = 0; u < T; u++) {
                if (failed == DONE) failed = h->status[parity][u];
                more |= h->more[parity][u];
                states += h->used[parity][u];
                bytes += h->bytes[parity][u];
            }
            if (t == 0) {
                if (states > s->peak_states) s->peak_states = states;
                if (bytes > s->peak_bytes) s->peak_bytes = bytes;
            }
            if (failed == DONE && states > h->budget) failed = BUDGET;
            if (failed != DONE) {
                if (t == 0) h->outcome = failed;
                stop = 1;
                break;
            }
            if (!more) break;
        }
        if (stop) break;
        layer_clear(&h->cur[t]);
        Layer swap = h->cur[t]; h->cur[t] = h->next[t]; h->next[t] = swap;
    }
    return NULL;
}

static int scan_threads(Frontier *s, double deadline, size_t budget, u128 *total, int threads) {
    Shared *h = calloc(1, sizeof(Shared));
    if (h == NULL) return NO_MEMORY;
    h->s = s; h->threads = threads; h->deadline = deadline; h->budget = budget;
    h->out = calloc((size_t)threads * threads, sizeof(Buffer));
    Worker workers[MOST_THREADS];
    pthread_t ids[MOST_THREADS];
    int started = 0, status = h->out ? layer_add(&h->cur[0], 0, 0, 0, 0, 1, NULL, 0, 0) : NO_MEMORY;
    if (status == DONE) {
        pthread_mutex_init(&h->barrier.lock, NULL);
        pthread_cond_init(&h->barrier.turn, NULL);
        pthread_mutex_init(&h->gate_lock, NULL);
        pthread_cond_init(&h->gate, NULL);
        h->barrier.parties = threads;
        h->outcome = DONE;
        for (int t = 0; t < threads; t++) workers[t] = (Worker){h, t};
        /* Thread 0 is the caller.  If a thread cannot be started, none works: the gate
         * opens with go = 0 and the scan runs on this thread alone. */
        for (started = 1; started < threads; started++)
            if (pthread_create(&ids[started], NULL, work_on, &workers[started])) break;
        pthread_mutex_lock(&h->gate_lock);
        h->opened = 1;
        h->go = started == threads;
        pthread_cond_broadcast(&h->gate);
        pthread_mutex_unlock(&h->gate_lock);
        if (h->go) work_on(&workers[0]);
        for (int t = 1; t < started; t++) pthread_join(ids[t], NULL);
        pthread_mutex_destroy(&h->barrier.lock);
        pthread_cond_destroy(&h->barrier.turn);
        pthread_mutex_destroy(&h->gate_lock);
        pthread_cond_destroy(&h->gate);
        if (!h->go) {
            for (int t = 0; t < MOST_THREADS; t++) { layer_free(&h->cur[t]); layer_free(&h->next[t]); }
            free(h->out);
            free(h);
            return scan(s, deadline, budget, total);
        }
        status = h->outcome;
    }
    *total = 0;
    for (int t = 0; status == DONE && t < threads; t++) status = add_finished(s, &h->cur[t], total);
    for (int t = 0; t < MOST_THREADS; t++) { layer_free(&h->cur[t]); layer_free(&h->next[t]); }
    for (int k = 0; h->out && k < threads * threads; k++) free(h->out[k].items);
    free(h->out);
    free(h);
    return status;
}

static void Frontier_dealloc(Frontier *s) {
    free(s->first); free(s->window); free(s->tail); free(s->member_start); free(s->member_group);
    free(s->member_weight); free(s->lo); free(s->hi); free(s->shift); free(s->field);
    free(s->other); free(s->rho); free(s->good); free(s->near_start); free(s->near); free(s->border_start); free(s->border);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int read_u64(PyObject *seq, Py_ssize_t k, uint64_t *out) {
    PyObject *item = PySequence_GetItem(seq, k);
    if (item == NULL) return -1;
    *out = PyLong_AsUnsignedLongLong(item);
    Py_DECREF(item);
    return (*out == (uint64_t)-1 && PyErr_Occurred()) ? -1 : 0;
}

static int bit_length(uint64_t v) { int n = 0; while (v) { n++; v >>= 1; } return n; }

/* near_start/near from a list per cell of its neighbours (empty when unit = 0). */
static int read_nears(Frontier *s, int n_cells, PyObject *nears) {
    Py_ssize_t listed = PySequence_Length(nears);
    if (listed < 0) return -1;
    if (s->unit && listed != n_cells) {
        PyErr_SetString(PyExc_ValueError, "pockets need the neighbours of every cell");
        return -1;
    }
    s->near_start = calloc(n_cells + 2, sizeof(int));
    s->near = calloc(4 * (size_t)listed + 1, sizeof(int));
    if (!s->near_start || !s->near) { PyErr_NoMemory(); return -1; }
    int k = 0;
    for (Py_ssize_t p = 0; p < listed; p++) {
        s->near_start[p] = k;
        PyObject *cell = PySequence_GetItem(nears, p);
        Py_ssize_t n = cell ? PySequence_Length(cell) : -1;
        for (Py_ssize_t j = 0; j < n && j < 4; j++) {
            uint64_t q;
            if (read_u64(cell, j, &q)) { n = -1; break; }
            s->near[k++] = (int)q;
        }
        Py_XDECREF(cell);
        if (n < 0) return -1;
    }
    for (Py_ssize_t p = listed; p <= n_cells; p++) s->near_start[p] = k;
    return 0;
}

/* border_start/border: per option, the cells next to its cells (for pockets_ok). */
static int build_borders(Frontier *s, Py_ssize_t n_options) {
    size_t room = 64, used = 0;
    s->border_start = calloc(n_options + 1, sizeof(int));
    s->border = malloc(room * sizeof(int));
    if (!s->border_start || !s->border) return -1;
    for (int i = 0; i < s->n_cells; i++)
        for (int o = s->first[i]; o < s->first[i + 1]; o++) {
            s->border_start[o] = (int)used;
            for (uint64_t cells = s->window[o]; cells; cells &= cells - 1) {
                int p = i + __builtin_ctzll(cells);
                for (int k = s->near_start[p]; k < s->near_start[p + 1]; k++) {
                    int q = s->near[k], j = q - i, known = j >= 0 && j < 64 && (s->window[o] >> j & 1);
                    for (size_t b = s->border_start[o]; !known && b < used; b++) known = s->border[b] == q;
                    if (known) continue;
                    if (used == room) {
                        int *border = realloc(s->border, 2 * room * sizeof(int));
                        if (border == NULL) return -1;
                        s->border = border;
                        room *= 2;
                    }
                    s->border[used++] = q;
                }
            }
        }
    s->border_start[n_options] = (int)used;
    return 0;
}

/* Frontier(n_cells, options, groups, tail_full, pruning, pockets)
 *   options: per option (start cell, window mask from the start, tail mask, [(group, weight)],
 *            other, rho), sorted by start cell; the window's bit 0 is set;
 *   groups:  per group (lo, hi, shift), hi = 0 meaning no upper bound, its total packed at shift;
 *   pruning: (region, other_tail, other_totals, [(tail, totals, needed)]): the good set, or
 *            an empty list for none;
 *   pockets: (unit, smallest, reach, [neighbours of each cell]), unit 0 for no check. */
static int Frontier_init(Frontier *s, PyObject *args, PyObject *kwds) {
    int n_cells;
    PyObject *options, *groups, *good, *nears;
    unsigned long long tail_full, region, other_tail, other_totals;
    if (!PyArg_ParseTuple(args, "iOOK(KKKO)(iiiO)", &n_cells, &options, &groups, &tail_full, &region, &other_tail,
                          &other_totals, &good, &s->unit, &s->smallest, &s->reach, &nears))
        return -1;
    if (read_nears(s, n_cells, nears)) return -1;
    Py_ssize_t n_good = PySequence_Length(good);
    if (n_good < 0) return -1;
    CoverInput in;
    if (cover_input_read(&in, options, groups, -1, 3, 0, 0)) { cover_input_free(&in); return -1; }
    int n_options = in.n_options, n_groups = in.n_groups;
    s->n_cells = n_cells;
    s->n_groups = n_groups;
    s->tail_full = tail_full;
    s->region = region;
    s->other_tail = other_tail;
    s->other_totals = other_totals;
    s->member_start = in.member_start; s->member_group = in.member_group;   /* kept as read */
    in.member_start = in.member_group = NULL;
    s->first = calloc(n_cells + 2, sizeof(int));
    s->window = calloc(n_options + 1, sizeof(uint64_t));
    s->tail = calloc(n_options + 1, sizeof(uint64_t));
    s->other = calloc(n_options + 1, 1);
    s->rho = calloc(n_options + 1, sizeof(uint64_t));
    s->member_weight = calloc(s->member_start[n_options] + 1, sizeof(uint64_t));
    s->lo = calloc(n_groups + 1, sizeof(uint64_t));
    s->hi = calloc(n_groups + 1, sizeof(uint64_t));
    s->shift = calloc(n_groups + 1, sizeof(uint64_t));
    s->field = calloc(n_groups + 1, sizeof(uint64_t));
    s->good_capacity = 1;
    while (s->good_capacity < 2 * (size_t)n_good + 2) s->good_capacity *= 2;
    s->good = calloc(s->good_capacity, sizeof(uint64_t));
    if (!s->first || !s->window || !s->tail || !s->other || !s->rho || !s->member_weight || !s->lo || !s->hi ||
        !s->shift || !s->field || !s->good) {
        cover_input_free(&in);
        PyErr_NoMemory();
        return -1;
    }
    /* Counts are unsigned here: a negative bound or weight is a caller's mistake. */
    int ok = 1;
    for (int k = 0; ok && k < s->member_start[n_options]; k++) {
        ok = in.member_weight[k] >= 0;
        s->member_weight[k] = (uint64_t)in.member_weight[k];
    }
    for (int g = 0; ok && g < n_groups; g++) {
        PyObject *bounds = PySequence_GetItem(groups, g);
        ok = bounds != NULL && !read_u64(bounds, 2, &s->shift[g]) && in.lo[g] >= 0 && in.hi[g] >= 0;
        Py_XDECREF(bounds);
        if (!ok) break;
        s->lo[g] = (uint64_t)in.lo[g];
        s->hi[g] = (uint64_t)in.hi[g];
        int width = bit_length(s->hi[g] ? s->hi[g] : s->lo[g]);
        s->field[g] = width ? (width == 64 ? ~0ULL : (1ULL << width) - 1) : 0;
        if (s->shift[g] + width > 64) {
            PyErr_SetString(PyExc_ValueError, "the piece counts do not fit in 64 bits");
            ok = 0;
        }
    }
    cover_input_free(&in);
    if (!ok) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "piece counts and weights must be 0 or more");
        return -1;
    }
    for (Py_ssize_t k = 0; k < n_good; k++) {
        PyObject *triple = PySequence_GetItem(good, k);
        uint64_t tail, totals, needed;
        int bad = triple == NULL || read_u64(triple, 0, &tail) || read_u64(triple, 1, &totals) ||
                  read_u64(triple, 2, &needed);
        Py_XDECREF(triple);
        if (bad) return -1;
        uint64_t h = fingerprint(tail, totals, needed);
        size_t mask = s->good_capacity - 1, slot = h & mask;
        while (s->good[slot] && s->good[slot] != h) slot = (slot + 1) & mask;
        s->good[slot] = h;
    }
    /* Each option's start cell, masks and colouring value (its memberships are read above). */
    int previous = 0;
    for (int o = 0; ok && o < n_options; o++) {
        PyObject *row = PySequence_GetItem(options, o);
        uint64_t start, other;
        ok = row != NULL && !read_u64(row, 0, &start) && !read_u64(row, 1, &s->window[o]) &&
             !read_u64(row, 2, &s->tail[o]) && !read_u64(row, 4, &other) && !read_u64(row, 5, &s->rho[o]);
        Py_XDECREF(row);
        if (!ok) break;
        s->other[o] = other != 0;
        if ((int)start < previous || (int)start >= n_cells || !(s->window[o] & 1)) {
            PyErr_SetString(PyExc_ValueError, "options must be sorted by start cell, each covering its start");
            ok = 0;
            break;
        }
        for (; previous < (int)start; previous++) s->first[previous + 1] = o;
    }
    if (ok) {
        for (; previous < n_cells; previous++) s->first[previous + 1] = n_options;
        if (s->unit && build_borders(s, n_options)) {
            PyErr_NoMemory();
            ok = 0;
        }
    }
    return ok ? 0 : -1;
}

static PyObject *from_u128(u128 value) {
    PyObject *high = PyLong_FromUnsignedLongLong((unsigned long long)(value >> 64));
    PyObject *low = PyLong_FromUnsignedLongLong((unsigned long long)value);
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *shifted = high && sixty_four ? PyNumber_Lshift(high, sixty_four) : NULL;
    PyObject *result = shifted && low ? PyNumber_Or(shifted, low) : NULL;
    Py_XDECREF(high); Py_XDECREF(low); Py_XDECREF(sixty_four); Py_XDECREF(shifted);
    return result;
}

/* run(budget, time_limit[, threads]) -> (status, count, peak states, peak bytes) */
static PyObject *Frontier_run(Frontier *s, PyObject *args) {
    unsigned long long budget;
    double time_limit;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "Kd|i", &budget, &time_limit, &threads)) return NULL;
    if (threads < 1) threads = 1;
    if (threads > MOST_THREADS) threads = MOST_THREADS;
    double deadline = time_limit > 0 ? now() + time_limit : 0;
    u128 total = 0;
    int status;
    s->peak_states = s->peak_bytes = 0;
    Py_BEGIN_ALLOW_THREADS
    if (s->cancel) status = CANCELLED;
    else if (threads == 1) status = scan(s, deadline, (size_t)budget, &total);
    else status = scan_threads(s, deadline, (size_t)budget, &total, threads);
    Py_END_ALLOW_THREADS
    static const char *names[] = {"completed", "interrupted", "time_limit", "budget", "overflow", "no_memory"};
    PyObject *count = from_u128(total);
    if (count == NULL) return NULL;
    return Py_BuildValue("(sNnn)", names[status], count, (Py_ssize_t)s->peak_states, (Py_ssize_t)s->peak_bytes);
}

static PyObject *Frontier_cancel(Frontier *s, PyObject *unused) {
    s->cancel = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Frontier_methods[] = {
    {"run", (PyCFunction)Frontier_run, METH_VARARGS,
     "run(budget, time_limit[, threads]) -> (status, count, peak states, peak bytes); threads > 1 scans each "
     "layer on that many threads"},
    {"cancel", (PyCFunction)Frontier_cancel, METH_NOARGS, "ask a running scan to stop soon (any thread)"},
    {NULL}
};

static PyTypeObject FrontierType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "polytile_exactcover._frontier.Frontier",
    .tp_basicsize = sizeof(Frontier),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Frontier(n_cells, options, groups, tail_full, pruning): counts exact covers by a frontier scan",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Frontier_init,
    .tp_dealloc = (destructor)Frontier_dealloc,
    .tp_methods = Frontier_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_frontier", "Counting exact covers by a frontier scan", -1, NULL};

PyMODINIT_FUNC PyInit__frontier(void) {
    if (PyType_Ready(&FrontierType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&FrontierType);
    if (PyModule_AddObject(m, "Frontier", (PyObject *)&FrontierType) < 0) {
        Py_DECREF(&FrontierType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
