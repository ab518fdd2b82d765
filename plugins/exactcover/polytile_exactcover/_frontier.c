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
 *
 * The scan meets in the middle: one side scans forward from the first cell, the other
 * backward from the last (placing the options by their start cell, last first), until
 * they meet; the two layers there are joined (join).  On one thread (scan) the side whose
 * next step should cost less takes it; on two (scan_both) each side has its own thread
 * and tables, with no lock but the one that hands out the next cell, and the side done
 * first helps with the other's last step.
 *
 * A listing keeps every layer of the forward scan instead ("Listing from the table"
 * below): the covers are the paths through states that a cover finishes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "_cover_input.h"
#include "_handover.h"

typedef unsigned __int128 u128;

enum { DONE = 0, CANCELLED = 1, TIMED_OUT = 2, BUDGET = 3, OVERFLOW = 4, NO_MEMORY = 5 };
/* Within the two-thread scan only: the other side failed (its status says why). */
enum { HALTED = 6 };

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

/* A new index is read before it is written (the look-up of a new state), which maps the
 * shared zero page, and the write then replaces it: in a process with two threads each
 * such replacement interrupts the other core to flush its TLB.  An index from this size
 * on is mapped writable at once: on 9x9 boards of issue 29 the scan on two threads took
 * 1.7-2.3 s of system time, 0.7-0.9 s so, and 10-15 % less time in all; one thread's
 * time is the same either way. */
enum { PREFAULT_BYTES = 1 << 20 };

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
#ifdef MADV_POPULATE_WRITE
    if (capacity * sizeof(uint32_t) >= PREFAULT_BYTES) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start = ((uintptr_t)index + page - 1) & ~(page - 1),
                  end = (uintptr_t)(index + capacity) & ~(page - 1);
        if (end > start) madvise((void *)start, end - start, MADV_POPULATE_WRITE);  /* a hint: if refused, the pages fault in one by one */
    }
#endif
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

/* The index slot of the state (window, tail, totals) in ``l``, or the empty slot where it
 * would go (``l->capacity`` > 0). */
static size_t layer_slot(const Layer *l, uint64_t window, uint64_t tail, uint64_t totals) {
    size_t mask = l->capacity - 1, slot = mix(window, tail, totals) & mask;
    for (; l->index[slot]; slot = (slot + 1) & mask) {
        const Entry *e = &l->entries[l->index[slot] - 1];
        if (e->window == window && e->tail == tail && e->totals == totals) break;
    }
    return slot;
}

/* Adds ``count`` to the state; returns a status other than DONE on failure.  With
 * ``check``, a new state with a pocket no pieces can fill is kept with count 0 (dead: a
 * live state never has count 0), so that reaching it again costs one look-up. */
static int layer_add(Layer *l, uint64_t window, uint64_t tail, uint64_t totals, uint64_t value, u128 count,
                     const Frontier *check, int o, int layer) {
    if (2 * (l->used + 1) > l->capacity && layer_grow(l)) return NO_MEMORY;
    size_t slot = layer_slot(l, window, tail, totals);
    if (l->index[slot]) {
        Entry *e = &l->entries[l->index[slot] - 1];
        if (e->count == 0) return DONE;
        u128 sum = e->count + count;
        if (sum < count) return OVERFLOW;
        e->count = sum;
        return DONE;
    }
    if (!grown((void **)&l->entries, &l->room, l->used, 1, sizeof(Entry))) return NO_MEMORY;
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

/* What the backward scan of layer j has asked of a window of open cells (shifted to cell
 * j, cell j open; never 0, 0 marks an empty slot): bit k < FILLED of ``tried`` says that
 * it asked whether the window option first[j] + k leaves can be filled by the options
 * starting before j, bit k of ``fits`` holds the answer; bit FILLED the same for the
 * window itself (cell j left open).  A layer has many states per window (they differ in
 * the pieces placed), and each question is a look-up that misses the cache: on issue
 * 29's 7x14 board with three counted pieces, asking per state was most of the backward
 * scan's time.  Questions are asked as states need them: where a window has few states
 * and the counts rule most options out (9x9 boards of six counted pieces), asking all
 * of them per window asked more than per state. */
typedef struct {
    uint64_t open, tried, fits;
} Asked;

enum { FILLED = 63 };
enum { AHEAD = 8 };  /* the backward scan fetches a state's window this many states ahead */

/* The windows of a layer's states, by open addressing. */
typedef struct {
    Asked *slots;
    size_t used, capacity;  /* a power of two, at least twice ``used`` */
} Windows;

/* Where the look-up of ``open`` starts (to fetch it ahead of time). */
static inline const Asked *windows_first(const Windows *w, uint64_t open) {
    return &w->slots[mix(open, 0, 0) & (w->capacity - 1)];
}

/* The slot of ``open``, or the empty slot where it would go. */
static Asked *windows_find(const Windows *w, uint64_t open) {
    size_t mask = w->capacity - 1, slot = mix(open, 0, 0) & mask;
    while (w->slots[slot].open && w->slots[slot].open != open) slot = (slot + 1) & mask;
    return &w->slots[slot];
}

/* The slot of ``open``, added (nothing asked) if it was not there; NULL: out of memory. */
static Asked *windows_take(Windows *w, uint64_t open) {
    Asked *slot = windows_find(w, open);
    if (slot->open) return slot;
    if (2 * (w->used + 1) > w->capacity) {
        Windows larger = {calloc(2 * w->capacity, sizeof(Asked)), w->used, 2 * w->capacity};
        if (larger.slots == NULL) return NULL;
        for (size_t k = 0; k < w->capacity; k++)
            if (w->slots[k].open) *windows_find(&larger, w->slots[k].open) = w->slots[k];
        free(w->slots);
        *w = larger;
        slot = windows_find(w, open);
    }
    *slot = (Asked){open, 0, 0};
    w->used++;
    return slot;
}

/* Empties the table, with room for four times the windows of the layer before (a table
 * that grows is rehashed) and never less than it had (a new one is memory to fault in). */
static int windows_clear(Windows *w) {
    size_t capacity = w->capacity ? w->capacity : 1024;
    while (capacity < 4 * w->used) capacity *= 2;
    if (capacity != w->capacity) {
        free(w->slots);
        w->slots = malloc(capacity * sizeof(Asked));
        w->capacity = w->slots ? capacity : 0;
        if (w->slots == NULL) return NO_MEMORY;
    }
    memset(w->slots, 0, capacity * sizeof(Asked));
    w->used = 0;
    return DONE;
}

/* Which windows of open cells a backward state of layer j may have: a disjoint union of
 * the parts from cell j on of options starting before j (the pieces that will cover
 * them).  ``parts`` holds those parts, sorted, ``by_low[k] .. by_low[k + 1]`` the ones
 * whose first cell is j+k; ``seen`` remembers the answer per window (2 yes, 1 no). */
typedef struct {
    uint64_t *parts;
    size_t n_parts, parts_room;
    int by_low[65];
    uint64_t *keys;
    char *seen;
    size_t used, capacity;
    Windows windows;        /* of the states of layer j+1 */
} Fillable;

static int compare_parts(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    int low_x = __builtin_ctzll(x), low_y = __builtin_ctzll(y);
    if (low_x != low_y) return low_x < low_y ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The parts of layer j, and no window known yet. */
static int fillable_start(const Frontier *s, Fillable *f, int j) {
    f->n_parts = 0;
    for (int start = j > 63 ? j - 63 : 0; start < j; start++)
        for (int o = s->first[start]; o < s->first[start + 1]; o++) {
            uint64_t part = s->window[o] >> (j - start);
            if (!part) continue;
            if (f->n_parts == f->parts_room) {
                size_t room = f->parts_room ? 2 * f->parts_room : 256;
                uint64_t *parts = realloc(f->parts, room * sizeof(uint64_t));
                if (parts == NULL) return NO_MEMORY;
                f->parts = parts;
                f->parts_room = room;
            }
            f->parts[f->n_parts++] = part;
        }
    qsort(f->parts, f->n_parts, sizeof(uint64_t), compare_parts);
    size_t kept = 0;
    for (size_t k = 0; k < f->n_parts; k++)
        if (kept == 0 || f->parts[kept - 1] != f->parts[k]) f->parts[kept++] = f->parts[k];
    f->n_parts = kept;
    for (int low = 0, k = 0; low <= 64; low++) {
        while (k < (int)kept && __builtin_ctzll(f->parts[k]) < low) k++;
        f->by_low[low] = k;
    }
    if (f->capacity == 0) {
        f->capacity = 1024;
        f->keys = malloc(f->capacity * sizeof(uint64_t));
        f->seen = malloc(f->capacity);
        if (!f->keys || !f->seen) return NO_MEMORY;
    }
    memset(f->seen, 0, f->capacity);
    f->used = 0;
    return windows_clear(&f->windows);
}

static char *fillable_slot(Fillable *f, uint64_t open) {
    size_t mask = f->capacity - 1, slot = mix(open, 0, 0) & mask;
    while (f->seen[slot] && f->keys[slot] != open) slot = (slot + 1) & mask;
    return &f->seen[slot];
}

/* Whether ``open`` is a disjoint union of parts: the first open cell is the first cell of
 * the part covering it, and no search is made when some open cell lies in no part that
 * fits.  The answers for the windows met, and for those the search met, are kept for the
 * layer.  -1: out of memory. */
static int fillable(Fillable *f, uint64_t open) {
    if (!open) return 1;
    char *seen = fillable_slot(f, open);
    if (*seen) return *seen == 2;
    int low = __builtin_ctzll(open), yes = 0;
    uint64_t support = 0;
    for (size_t k = f->by_low[low]; k < f->n_parts; k++)
        if (!(f->parts[k] & ~open)) support |= f->parts[k];
    for (int k = support == open ? f->by_low[low] : f->by_low[low + 1]; !yes && k < f->by_low[low + 1]; k++)
        if (!(f->parts[k] & ~open)) {
            yes = fillable(f, open & ~f->parts[k]);
            if (yes < 0) return -1;
        }
    if (2 * (f->used + 1) > f->capacity) {
        size_t capacity = 2 * f->capacity;
        uint64_t *keys = malloc(capacity * sizeof(uint64_t));
        char *marks = calloc(capacity, 1);
        if (!keys || !marks) { free(keys); free(marks); return -1; }
        for (size_t k = 0; k < f->capacity; k++)
            if (f->seen[k]) {
                size_t slot = mix(f->keys[k], 0, 0) & (capacity - 1);
                while (marks[slot]) slot = (slot + 1) & (capacity - 1);
                keys[slot] = f->keys[k];
                marks[slot] = f->seen[k];
            }
        free(f->keys); free(f->seen);
        f->keys = keys; f->seen = marks; f->capacity = capacity;
    }
    seen = fillable_slot(f, open);
    f->keys[seen - f->seen] = open;
    *seen = yes ? 2 : 1;
    f->used++;
    return yes;
}

/* One direction of a scan: its two layers, the successors waiting to be added, its peaks. */
typedef struct {
    Layer layers[2];
    Layer *cur, *next;
    Pending *pending;
    int room, waiting;
    unsigned long work;
    size_t peak_states, peak_bytes;
    Fillable fillable;      /* the backward side's */
    int keep;               /* a listing's table: every layer is kept (the caller moves cur and next) */
    size_t *claims;         /* on two threads: the next state of the step's current layer to expand (shared) */
    const Layer *partner;   /* on two threads: the rest of the next layer, made by the other thread, or NULL */
} Side;

enum { CHUNK = 1024 };  /* states a thread takes at a time from a step on two threads */

/* The next run [start, *end) of the current layer's states for this thread to expand: all
 * of them at once when the thread is alone in the step (``alone`` keeps where it got),
 * else CHUNK at a time from the shared ``claims``; start = *end once they are taken. */
static inline size_t claim(const Side *d, size_t *alone, size_t used, size_t *end) {
    if (d->claims == NULL) {
        size_t start = *alone;
        *alone = *end = used;
        return start;
    }
    size_t start = __atomic_fetch_add(d->claims, CHUNK, __ATOMIC_RELAXED);
    if (start > used) start = used;
    *end = used - start < CHUNK ? used : start + CHUNK;
    return start;
}

/* The states of the next layer so far, the other thread's part too (read while it grows:
 * at most what it will be). */
static inline size_t next_states(const Side *d) {
    return d->next->used + (d->partner ? __atomic_load_n(&d->partner->used, __ATOMIC_RELAXED) : 0);
}

/* A side holding its first layer: one empty state with count 1. */
static int side_open(const Frontier *s, Side *d) {
    memset(d, 0, sizeof *d);
    d->cur = &d->layers[0];
    d->next = &d->layers[1];
    int most = 0;
    for (int i = 0; i < s->n_cells; i++)
        if (s->first[i + 1] - s->first[i] > most) most = s->first[i + 1] - s->first[i];
    d->room = BATCH + most + 1;
    d->pending = malloc(d->room * sizeof(Pending));
    if (d->pending == NULL) return NO_MEMORY;
    return layer_add(d->cur, 0, 0, 0, 0, 1, NULL, 0, 0);
}

static void side_close(Side *d) {
    free(d->fillable.parts);
    free(d->fillable.keys);
    free(d->fillable.seen);
    free(d->fillable.windows.slots);
    free(d->pending);
    layer_free(&d->layers[0]);
    layer_free(&d->layers[1]);
}

/* After a step (the caller's, once no thread works on it): the next layer's peaks noted;
 * once it is whole (``status`` DONE), it becomes the current one, else the current layer
 * stays the last whole one. */
static void side_turn(Side *d, int status) {
    if (d->next->used > d->peak_states) d->peak_states = d->next->used;
    size_t bytes = layer_bytes(d->cur) + layer_bytes(d->next);
    if (bytes > d->peak_bytes) d->peak_bytes = bytes;
    if (status != DONE || d->keep) return;
    layer_clear(d->cur);
    Layer *swap = d->cur; d->cur = d->next; d->next = swap;
}

/* What stops a scan, checked every 4096 states: a cancel, the clock, the other side's
 * failure (``halt``), the budget. */
static inline int checked(const Frontier *s, const Side *d, unsigned long *work, double deadline, size_t budget,
                          const int *halt) {
    if ((++*work & 4095) == 0) {
        if (s->cancel) return CANCELLED;
        if (__atomic_load_n(halt, __ATOMIC_RELAXED)) return HALTED;
        if (deadline > 0 && now() > deadline) return TIMED_OUT;
        if (next_states(d) > budget) return BUDGET;
    }
    return d->next->used > budget ? BUDGET : DONE;
}

/* Forward over cell i: layer i+1 (the cells before i+1 covered) from layer i, by placing
 * at the first empty cell each option that starts there. */
static int forward_step(const Frontier *s, Side *d, int i, double deadline, size_t budget, const int *halt) {
    Layer *cur = d->cur, *next = d->next;
    Pending *pending = d->pending;
    int status = DONE, waiting = d->waiting;
    unsigned long work = d->work;
    size_t alone = 0, end = 0;
    for (size_t k = claim(d, &alone, cur->used, &end); status == DONE && k < end;
         k = k + 1 < end ? k + 1 : claim(d, &alone, cur->used, &end)) {
        Entry e = cur->entries[k];
        if (e.count == 0) continue;
        if (waiting + (s->first[i + 1] - s->first[i]) + 1 > d->room) status = flush(s, next, pending, &waiting, i + 1);
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
            pending[waiting++] = (Pending){(e.window | s->window[o]) >> 1, tail, totals, value, e.count, o,
                                              s->unit != 0};
        }
        if (status == DONE) status = checked(s, d, &work, deadline, budget, halt);
    }
    if (status == DONE) status = flush(s, next, pending, &waiting, i + 1);
    d->waiting = waiting;
    d->work = work;
    if (status == DONE && next_states(d) > budget) status = BUDGET;
    return status;
}

/* Backward over cell j: layer j from layer j+1.  A backward state of layer j has placed
 * the options starting at j or later; its window holds the cells from j on that are still
 * OPEN, to be covered by options starting before j (every cell past the window is
 * covered), so a backward and a forward state of layer j fit together when the forward
 * window (the cells from j on covered) equals the backward one.  Cell j is left open or
 * covered by an option starting at j; a window that options starting before j cannot
 * fill exactly (``fillable``) ends the state.  That check is the backward scan's pruning:
 * without it its layers were 3-5 times the forward scan's (a 9x9 board of 78 cells); the
 * forward scan's windows are such unions by construction.  What is asked of a window is
 * kept for the layer (``Asked``). */
static int backward_step(const Frontier *s, Side *d, int j, double deadline, size_t budget, const int *halt) {
    Layer *cur = d->cur, *next = d->next;
    Pending *pending = d->pending;
    Fillable *f = &d->fillable;
    int status = fillable_start(s, f, j), waiting = d->waiting;
    unsigned long work = d->work;
    size_t alone = 0, end = 0;
    for (size_t k = claim(d, &alone, cur->used, &end); status == DONE && k < end;
         k = k + 1 < end ? k + 1 : claim(d, &alone, cur->used, &end)) {
        Entry e = cur->entries[k];
        if (k + AHEAD < cur->used)
            __builtin_prefetch(windows_first(&f->windows, cur->entries[k + AHEAD].window << 1 | 1));
        if (e.count == 0) continue;
        if (waiting + (s->first[j + 1] - s->first[j]) + 1 > d->room) status = flush(s, next, pending, &waiting, j);
        uint64_t open = e.window << 1 | 1;
        Asked *asked = windows_take(&f->windows, open);
        if (asked && !(asked->tried >> FILLED & 1)) {
            int yes = fillable(f, open);
            asked->tried |= 1ULL << FILLED;
            asked->fits |= (uint64_t)(yes > 0) << FILLED;
            if (yes < 0) asked = NULL;
        }
        if (asked == NULL) {
            status = NO_MEMORY;
            break;
        }
        if (asked->fits >> FILLED & 1) pending[waiting++] = (Pending){open, e.tail, e.totals, e.value, e.count, 0, 0};
        for (int o = s->first[j], bit = 0; o < s->first[j + 1]; o++, bit++) {
            if ((s->window[o] & ~open) || (s->tail[o] & e.tail)) continue;
            int ok;
            uint64_t totals = moved(s, o, e.totals, &ok), left = open & ~s->window[o];
            if (!ok) continue;
            if (bit >= FILLED || !(asked->tried >> bit & 1)) {
                /* Not asked yet for this window (or past the bits kept): asked now. */
                int yes = fillable(f, left);
                if (yes < 0) {
                    status = NO_MEMORY;
                    break;
                }
                if (bit < FILLED) {
                    asked->tried |= 1ULL << bit;
                    asked->fits |= (uint64_t)yes << bit;
                }
                if (!yes) continue;
            } else if (!(asked->fits >> bit & 1)) {
                continue;
            }
            uint64_t tail = e.tail | s->tail[o], value = e.value;
            if (s->other[o]) {
                value += s->rho[o];
                if (!good_has(s, tail & s->other_tail, totals & s->other_totals, s->region - value)) continue;
            }
            pending[waiting++] = (Pending){left, tail, totals, value, e.count, o, 0};
        }
        if (status == DONE) status = checked(s, d, &work, deadline, budget, halt);
    }
    if (status == DONE) status = flush(s, next, pending, &waiting, j);
    d->waiting = waiting;
    d->work = work;
    if (status == DONE && next_states(d) > budget) status = BUDGET;
    return status;
}

/* The join of a forward and a backward layer m: a tiling is a forward state and a
 * backward state that fit (the same window, the pieces used once split between them,
 * every counted piece's two totals summing within its bounds).  The live states of both
 * layers are laid out by the bucket of the (window, backward tail, backward totals of the
 * pieces counted exactly) they need, so that a bucket's forward states meet its backward
 * states in two short runs of memory; each of two threads lays out and joins half the
 * buckets. */
typedef struct __attribute__((packed, aligned(8))) {
    uint64_t window, tail, totals;   /* tail: the backward one; totals as ``bytes`` lays them out, when it can */
    u128 count;
} Half;

/* A state's totals one counted piece a byte, when there are at most 8 and every bound
 * is below 64 (two totals then add without a carry between bytes); else 0 with *fits 0. */
static uint64_t bytes(const Frontier *s, uint64_t totals, int *fits) {
    uint64_t wide = 0;
    *fits = s->n_groups <= 8;
    for (int g = 0; *fits && g < s->n_groups; g++) {
        *fits = s->lo[g] < 64 && s->hi[g] < 64;
        wide |= ((totals >> s->shift[g]) & s->field[g]) << (8 * g);
    }
    return *fits ? wide : 0;
}

enum { HIGH_BITS = 0x8080808080808080ULL };
/* Backward states per bucket of the join: laying the states out by bucket writes to
 * random places in the buckets' counts, and with a bucket per backward state those
 * missed the cache, most of the join's time on issue 29's 7x14 board; the fits a bucket
 * checks in vain cost less. */
enum { BUCKET_STATES = 16 };

typedef struct {
    const Frontier *s;
    const Layer *layer[2][2];         /* forward, backward: the layer, and a part of it another thread made or NULL */
    size_t buckets;                   /* a power of two; thread t has [t * buckets / 2, (t + 1) * buckets / 2) */
    size_t *begin[2];                 /* per layer, bucket b's run: halves[.][b's thread][begin[.][b] .. its end) */
    Half *halves[2][2];
    size_t laid[2][2];                /* per layer, the states each thread laid out */
    int by_bytes;                     /* the totals are bytes: a fit is lowest <= sum <= highest, a byte at a time */
    uint64_t lowest, highest;
    uint64_t exact, exact_lo;         /* the fields of the pieces counted exactly (lo = hi), and their lo */
    double deadline;
} Joined;

typedef struct {
    Joined *j;
    int t;
    u128 total;
    int status;
} JoinShare;

/* The backward tail and the backward totals of the pieces counted exactly that a state of
 * layer ``side`` (0 forward) needs: with the window, its bucket.  A forward state has
 * placed at most lo copies of such a piece, so the fields subtract without a borrow.
 * With pieces counted, a window's states differ mostly in their totals: on issue 29's
 * 7x14 board, where two of three are counted exactly, the pairs of states a bucket
 * checks went from 187 to 15 million. */
static inline uint64_t wanted_tail(const Frontier *s, int side, uint64_t tail) { return side ? tail : s->tail_full & ~tail; }

static inline uint64_t wanted_exact(const Joined *j, int side, uint64_t totals) {
    return side ? totals & j->exact : j->exact_lo - (totals & j->exact);
}

static inline size_t bucket(const Joined *j, int side, const Entry *e) {
    return mix(e->window, wanted_tail(j->s, side, e->tail), wanted_exact(j, side, e->totals)) & (j->buckets - 1);
}

/* Lays out thread t's buckets of one layer: counted, then its live states copied in,
 * each bucket's run filled from its end so that begin[b] ends at its first state. */
static int lay_out(Joined *j, int side, int t) {
    const Frontier *s = j->s;
    size_t *begin = j->begin[side], first = t * (j->buckets / 2), last = first + j->buckets / 2;
    for (int part = 0; part < 2 && j->layer[side][part]; part++)
        for (size_t k = 0; k < j->layer[side][part]->used; k++) {
            const Entry *e = &j->layer[side][part]->entries[k];
            size_t b = bucket(j, side, e);
            if (e->count && b >= first && b < last) begin[b]++;
        }
    size_t laid = 0;
    for (size_t b = first; b < last; b++) begin[b] = laid += begin[b];
    j->laid[side][t] = laid;
    Half *halves = j->halves[side][t] = malloc((laid + 1) * sizeof(Half));
    if (halves == NULL) return NO_MEMORY;
    for (int part = 0; part < 2 && j->layer[side][part]; part++)
        for (size_t k = 0; k < j->layer[side][part]->used; k++) {
            const Entry *e = &j->layer[side][part]->entries[k];
            size_t b = bucket(j, side, e);
            if (!e->count || b < first || b >= last) continue;
            uint64_t tail = wanted_tail(s, side, e->tail);
            int unused;
            halves[--begin[b]] = (Half){e->window, tail, j->by_bytes ? bytes(s, e->totals, &unused) : e->totals, e->count};
        }
    return DONE;
}

/* Thread t's buckets: each forward state against the backward states of its bucket.  The
 * backward counts that fit are summed without a branch on the fit (it is random), then
 * multiplied by the forward count once. */
static void *join_share(void *argument) {
    JoinShare *share = argument;
    Joined *j = share->j;
    const Frontier *s = j->s;
    int t = share->t;
    size_t first = t * (j->buckets / 2), last = first + j->buckets / 2;
    share->total = 0;
    share->status = lay_out(j, 0, t);
    if (share->status == DONE) share->status = lay_out(j, 1, t);
    for (size_t b = first; share->status == DONE && b < last; b++) {
        if ((b & 4095) == 0 && s->cancel) share->status = CANCELLED;
        else if ((b & 4095) == 0 && j->deadline > 0 && now() > j->deadline) share->status = TIMED_OUT;
        const Half *forward = j->halves[0][t], *backward = j->halves[1][t];
        const Half *h0 = &backward[j->begin[1][b]], *h1 = &backward[b + 1 < last ? j->begin[1][b + 1] : j->laid[1][t]];
        const Half *f1 = &forward[b + 1 < last ? j->begin[0][b + 1] : j->laid[0][t]];
        for (const Half *f = &forward[j->begin[0][b]]; h0 < h1 && f < f1; f++) {
            u128 fitting = 0, ways, sum;
            int overflow = 0;
            for (const Half *h = h0; h < h1; h++) {
                int fits = h->window == f->window && h->tail == f->tail;
                if (j->by_bytes) {
                    uint64_t both = f->totals + h->totals;
                    fits &= (((j->highest | HIGH_BITS) - both) & ((both | HIGH_BITS) - j->lowest) & HIGH_BITS) == HIGH_BITS;
                }
                for (int g = 0; fits && !j->by_bytes && g < s->n_groups; g++) {
                    uint64_t placed = ((f->totals >> s->shift[g]) & s->field[g]) + ((h->totals >> s->shift[g]) & s->field[g]);
                    fits = placed >= s->lo[g] && (!s->hi[g] || placed <= s->hi[g]);
                }
                u128 add = h->count & -(u128)fits;
                fitting += add;
                overflow |= fitting < add;
            }
            if (overflow || __builtin_mul_overflow(f->count, fitting, &ways) || (sum = share->total + ways) < ways) {
                share->status = OVERFLOW;
                break;
            }
            share->total = sum;
        }
    }
    return NULL;
}

/* Adds to ``total`` the tilings made of the forward and backward layers m, each given as
 * up to two parts (a state in both counts once with the sum of its counts: the join is
 * linear in each layer's counts); *extra_bytes: the memory it took. */
static int join(const Frontier *s, const Layer *const forward[2], const Layer *const backward[2], double deadline,
                int threads, u128 *total, size_t *extra_bytes) {
    Joined j = {.s = s, .layer = {{forward[0], forward[1]}, {backward[0], backward[1]}}, .buckets = 1024, .deadline = deadline};
    size_t backward_states = backward[0]->used + (backward[1] ? backward[1]->used : 0);
    while (j.buckets * BUCKET_STATES < backward_states) j.buckets *= 2;
    bytes(s, 0, &j.by_bytes);
    for (int g = 0; g < s->n_groups; g++)
        if (s->hi[g] && s->lo[g] == s->hi[g]) {
            j.exact |= s->field[g] << s->shift[g];
            j.exact_lo |= s->lo[g] << s->shift[g];
        }
    for (int g = 0; j.by_bytes && g < s->n_groups; g++) {
        j.lowest |= s->lo[g] << (8 * g);
        j.highest |= (s->hi[g] ? s->hi[g] : 127) << (8 * g);
    }
    j.begin[0] = calloc(j.buckets, sizeof(size_t));
    j.begin[1] = calloc(j.buckets, sizeof(size_t));
    JoinShare shares[2] = {{&j, 0, 0, DONE}, {&j, 1, 0, DONE}};
    int status = j.begin[0] && j.begin[1] ? DONE : NO_MEMORY;
    if (status == DONE) {
        /* Share 1 on a second thread, or here after share 0 on one thread or if none can be
         * started. */
        pthread_t id;
        int helped = threads > 1 && !pthread_create(&id, NULL, join_share, &shares[1]);
        join_share(&shares[0]);
        if (helped) pthread_join(id, NULL);
        else join_share(&shares[1]);
        status = shares[0].status != DONE ? shares[0].status : shares[1].status;
        *total = shares[0].total + shares[1].total;
        if (status == DONE && *total < shares[0].total) status = OVERFLOW;
    }
    *extra_bytes = 2 * j.buckets * sizeof(size_t);
    for (int side = 0; side < 2; side++) {
        *extra_bytes += (j.laid[side][0] + j.laid[side][1]) * sizeof(Half);
        free(j.begin[side]);
        free(j.halves[side][0]);
        free(j.halves[side][1]);
    }
    return status;
}

/* The scan on one thread, meeting in the middle as on two: the side whose next step
 * should take the less time takes it (its layer's states times the seconds a state has
 * taken that side so far: a backward state costs up to several forward ones), so the
 * sides meet where a step costs both the same, and neither holds the largest layer a
 * scan from one end would.  A backward side past its budget gives its cell back and the
 * forward side scans on.  ``meet`` >= 0 makes the forward side scan to that cell and the
 * backward side the rest (for tests). */
static int scan(Frontier *s, double deadline, size_t budget, u128 *total, int meet) {
    static const int no_halt = 0;
    Side sides[2];   /* forward, backward */
    double seconds[2] = {0, 0}, states[2] = {0, 0};
    int status = side_open(s, &sides[0]), backward_on = 1, low = 0, high = s->n_cells;
    if (status == DONE) status = side_open(s, &sides[1]);
    else memset(&sides[1], 0, sizeof sides[1]);
    while (status == DONE && low < high) {
        int back = backward_on;
        if (back && meet >= 0) back = low >= meet;
        else if (back)  /* a side not yet timed goes first (its rate is 0) */
            back = sides[1].cur->used * seconds[1] * (states[0] + 1) < sides[0].cur->used * seconds[0] * (states[1] + 1);
        Side *d = &sides[back];
        size_t used = d->cur->used;
        double started = now();
        int stepped = back ? backward_step(s, d, high - 1, deadline, budget, &no_halt)
                           : forward_step(s, d, low, deadline, budget, &no_halt);
        side_turn(d, stepped);
        seconds[back] += now() - started;
        states[back] += used;
        if (stepped == DONE && back) high--;
        else if (stepped == DONE) low++;
        else if (back && stepped == BUDGET) {
            backward_on = 0;
            layer_free(d->next);
        } else status = stepped;
    }
    *total = 0;
    size_t join_bytes = 0;
    layer_free(sides[0].next);
    layer_free(sides[1].next);
    const Layer *forward[2] = {sides[0].cur, NULL}, *backward[2] = {sides[1].cur, NULL};
    if (status == DONE) status = join(s, forward, backward, deadline, 1, total, &join_bytes);
    s->peak_states = sides[0].peak_states > sides[1].peak_states ? sides[0].peak_states : sides[1].peak_states;
    s->peak_bytes = sides[0].peak_bytes + sides[1].peak_bytes + join_bytes;
    side_close(&sides[0]);
    side_close(&sides[1]);
    return status;
}

/* The scan on two threads, meeting in the middle: this thread scans forward from the
 * first cell, a second thread backward from the last, each taking the next cell of its
 * end until they meet at some cell m, where the two layers m are joined.  Each side
 * works alone on its own tables; the cell they meet at is where their times balance.
 * The steps there are the largest, and the side that takes no cell left waits for the
 * other's last step (up to a second or more on the 9x9 boards of issue 29): it helps with
 * it instead, expanding CHUNK states of its current layer at a time (``claims``) into a
 * table of its own (``spare``), which the join takes as part of that side's layer m. */
typedef struct {
    Frontier *s;
    Side *sides[2];           /* forward, backward */
    Side backward;
    double deadline;
    size_t budget;
    pthread_mutex_t lock;
    pthread_cond_t stepped;   /* the backward side ended a step, or a helper its help */
    int stepping;             /* the backward side is in a step (it may give its cell back) */
    int low, high;            /* the cells not yet taken by either side: [low, high) */
    int meet;                 /* the cell to meet at, or -1: where the sides' times balance */
    int halt;                 /* the first failure of either side, seen by the other (atomic) */
    int forward_over;         /* the forward side has taken its last cell and ended its step */
    int cell[2];              /* the cell of side x's step */
    int helpable[2];          /* side x is in a step another thread may help with */
    int helpers[2];           /* threads helping with side x's step */
    int helped[2];            /* how the help with side x's step ended (DONE, or why not) */
    size_t claims[2];         /* the next state of side x's current layer to expand (atomic) */
    Layer spare[2];           /* side x's last layer: the part its helper made */
} Meeting;

/* Helps with side x's step: the states of its current layer not yet taken, into
 * spare[x]. */
static void help(Meeting *h, int x) {
    Side *owner = h->sides[x], me;
    int status = side_open(h->s, &me);
    me.cur = owner->cur;
    me.next = &h->spare[x];
    me.claims = &h->claims[x];
    me.partner = owner->next;
    if (status == DONE)
        status = x ? backward_step(h->s, &me, h->cell[x], h->deadline, h->budget, &h->halt)
                   : forward_step(h->s, &me, h->cell[x], h->deadline, h->budget, &h->halt);
    me.next = &me.layers[1];
    side_close(&me);
    pthread_mutex_lock(&h->lock);
    if (h->helped[x] == DONE) h->helped[x] = status;
    h->helpers[x]--;
    pthread_cond_broadcast(&h->stepped);
    pthread_mutex_unlock(&h->lock);
}

/* With the lock held: whether side x's step is its last (it will take no other cell). */
static int last_step(const Meeting *h, int x) {
    if (x == 0) return h->low == h->high || h->low == h->meet;
    return h->high == h->low || h->high == h->meet;
}

/* With the lock held: whether this thread, with no cell of its own left, should help with
 * side x's step (its last), some of whose states are not yet taken; if so it is counted
 * as a helper. */
static int helps(Meeting *h, int x) {
    int can = h->helpable[x] && last_step(h, x) &&
              __atomic_load_n(&h->claims[x], __ATOMIC_RELAXED) < h->sides[x]->cur->used;
    h->helpers[x] += can;
    return can;
}

/* Side x has a cell to step over: its step may be helped with from now on. */
static void step_starts(Meeting *h, int x, int cell) {
    h->cell[x] = cell;
    h->claims[x] = 0;
    h->helped[x] = DONE;
    h->helpable[x] = 1;
}

/* Side x's step is over on its own thread: once no helper works on it, its status (a
 * helper's failure is the step's) and its turn. */
static int step_ends(Meeting *h, int x, int status) {
    Side *d = h->sides[x];
    pthread_mutex_lock(&h->lock);
    h->helpable[x] = 0;
    while (h->helpers[x]) pthread_cond_wait(&h->stepped, &h->lock);
    if (status == DONE) status = h->helped[x];
    pthread_mutex_unlock(&h->lock);
    if (status == DONE && d->next->used + h->spare[x].used > h->budget) status = BUDGET;
    if (status != DONE) layer_free(&h->spare[x]);  /* a part of no whole layer */
    side_turn(d, status);
    return status;
}

/* The next cell for one side, or -1 once the sides have met.  The forward side waits
 * for the backward side's step to end before it takes the sides to have met, since a
 * backward side past its budget gives its cell back; meanwhile it helps with that step. */
static int take(Meeting *h, int forward) {
    pthread_mutex_lock(&h->lock);
    if (!forward) h->stepping = 0;
    int cell = -1;
    for (;;) {
        int open = h->low < h->high && (h->meet < 0 || (forward ? h->low < h->meet : h->high > h->meet));
        if (open) cell = forward ? h->low++ : --h->high;
        if (open || !forward || !h->stepping) break;
        if (helps(h, 1)) {
            pthread_mutex_unlock(&h->lock);
            help(h, 1);
            pthread_mutex_lock(&h->lock);
        } else {
            pthread_cond_wait(&h->stepped, &h->lock);
        }
    }
    if (cell >= 0) step_starts(h, !forward, cell);
    if (!forward) h->stepping = cell >= 0;
    else h->forward_over = cell < 0;
    pthread_cond_broadcast(&h->stepped);
    pthread_mutex_unlock(&h->lock);
    return cell;
}

/* The backward side ends (``status``): past its budget, cell j (its last) is given back
 * to the forward side; done, it helps with the forward side's last step once that has
 * begun (at once where the sides meet where their times balance: no cell is left). */
static void backward_ends(Meeting *h, int status, int j) {
    pthread_mutex_lock(&h->lock);
    if (status == BUDGET) {
        h->high = j + 1;
        h->meet = -1;
    }
    h->stepping = 0;
    pthread_cond_broadcast(&h->stepped);
    while (status == DONE && !h->forward_over && !(h->helpable[0] && last_step(h, 0)) &&
           !__atomic_load_n(&h->halt, __ATOMIC_RELAXED))
        pthread_cond_wait(&h->stepped, &h->lock);
    int helping = status == DONE && helps(h, 0);
    pthread_mutex_unlock(&h->lock);
    if (helping) help(h, 0);
}

/* Records a side's failure, unless the other side's came first. */
static void halt_both(Meeting *h, int status) {
    int none = DONE;
    __atomic_compare_exchange_n(&h->halt, &none, status, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* The backward side.  Past its budget it does not fail the scan: it gives its cell back
 * and stops, and the forward side scans on to its last whole layer. */
static void *scan_backward(void *argument) {
    Meeting *h = argument;
    int status = side_open(h->s, &h->backward), j = -1;
    h->backward.claims = &h->claims[1];
    h->backward.partner = &h->spare[1];
    while (status == DONE && !__atomic_load_n(&h->halt, __ATOMIC_RELAXED) && (j = take(h, 0)) >= 0)
        status = step_ends(h, 1, backward_step(h->s, &h->backward, j, h->deadline, h->budget, &h->halt));
    if (status != DONE && status != HALTED && status != BUDGET) halt_both(h, status);
    if (status == BUDGET) layer_free(h->backward.next);
    backward_ends(h, status, j);
    return NULL;
}

static int scan_both(Frontier *s, double deadline, size_t budget, u128 *total, int meet) {
    /* The backward side is in a step from its start to its first cell. */
    Meeting h = {.s = s, .deadline = deadline, .budget = budget, .stepping = 1, .low = 0, .high = s->n_cells, .meet = meet};
    Side forward;
    h.sides[0] = &forward;
    h.sides[1] = &h.backward;
    pthread_t id;
    pthread_mutex_init(&h.lock, NULL);
    pthread_cond_init(&h.stepped, NULL);
    int status = side_open(s, &forward);
    forward.claims = &h.claims[0];
    forward.partner = &h.spare[0];
    if (pthread_create(&id, NULL, scan_backward, &h)) {
        pthread_mutex_destroy(&h.lock);
        pthread_cond_destroy(&h.stepped);
        side_close(&forward);
        return scan(s, deadline, budget, total, meet);
    }
    for (int i; status == DONE && !__atomic_load_n(&h.halt, __ATOMIC_RELAXED) && (i = take(&h, 1)) >= 0;)
        status = step_ends(&h, 0, forward_step(s, &forward, i, deadline, budget, &h.halt));
    if (status != DONE && status != HALTED) halt_both(&h, status);
    pthread_mutex_lock(&h.lock);  /* a backward side waiting to help sees the forward side over */
    h.forward_over = 1;
    pthread_cond_broadcast(&h.stepped);
    pthread_mutex_unlock(&h.lock);
    pthread_join(id, NULL);
    pthread_mutex_destroy(&h.lock);
    pthread_cond_destroy(&h.stepped);
    status = h.halt;
    *total = 0;
    size_t join_bytes = 0;
    layer_free(forward.next);
    layer_free(h.backward.next);
    const Layer *forward_m[2] = {forward.cur, h.spare[0].used ? &h.spare[0] : NULL};
    const Layer *backward_m[2] = {h.backward.cur, h.spare[1].used ? &h.spare[1] : NULL};
    if (status == DONE) status = join(s, forward_m, backward_m, deadline, 2, total, &join_bytes);
    for (int x = 0; x < 2; x++) {
        size_t peak = h.sides[x]->peak_states, last = h.sides[x]->cur->used + h.spare[x].used;
        if (peak < last) peak = last;
        if (peak > s->peak_states) s->peak_states = peak;
    }
    s->peak_bytes = forward.peak_bytes + h.backward.peak_bytes + join_bytes + layer_bytes(&h.spare[0]) +
                    layer_bytes(&h.spare[1]);
    layer_free(&h.spare[0]);
    layer_free(&h.spare[1]);
    side_close(&forward);
    side_close(&h.backward);
    return status;
}

/* ---- Listing from the table ----
 *
 * A count needs two layers at a time; a listing keeps every layer of the forward scan
 * (``keep_layers``), within a budget of states in all.  Then, from the last layer back,
 * each state is marked live when some cover finishes it (``completions``).  A search from the first state that steps only to
 * states with a completion never backtracks in vain: every path it starts ends in a
 * cover, so the listing costs a few look-ups per piece of each tiling it writes, however
 * long a search filling the same cells would wander (a board whose copies only fail at
 * its last cells). */

/* The entry of ``l`` with key (window, tail, totals), or NULL. */
static Entry *layer_find(const Layer *l, uint64_t window, uint64_t tail, uint64_t totals) {
    if (!l->capacity) return NULL;
    uint32_t at = l->index[layer_slot(l, window, tail, totals)];
    return at ? &l->entries[at - 1] : NULL;
}

/* Whether a state of the last layer is a cover: every piece used once placed, every
 * counted piece at its lower bound. */
static int finished(const Frontier *s, const Entry *e) {
    if (e->window || e->tail != s->tail_full) return 0;
    for (int g = 0; g < s->n_groups; g++)
        if (((e->totals >> s->shift[g]) & s->field[g]) < s->lo[g]) return 0;
    return 1;
}

/* The state of layer i + 1 (``next``) that state ``e`` of layer i leads to by option o
 * (o < 0: cell i is covered already), or NULL.  A successor the colouring invariant
 * refused is in no layer, since the invariant is a function of the key. */
static Entry *successor(const Frontier *s, const Layer *next, const Entry *e, int o) {
    if (o < 0) return layer_find(next, e->window >> 1, e->tail, e->totals);
    if ((s->window[o] & e->window) || (s->tail[o] & e->tail)) return NULL;
    int ok;
    uint64_t totals = moved(s, o, e->totals, &ok);
    return ok ? layer_find(next, (e->window | s->window[o]) >> 1, e->tail | s->tail[o], totals) : NULL;
}

/* The forward scan with every layer kept in ``all`` (n_cells + 1 layers), at most
 * ``budget`` states in all. */
static int keep_layers(const Frontier *s, Layer *all, double deadline, size_t budget, size_t *states, size_t *bytes) {
    static const int no_halt = 0;
    Side d;
    int status = side_open(s, &d);
    all[0] = d.layers[0];
    memset(&d.layers[0], 0, sizeof d.layers[0]);
    d.keep = 1;
    *states = all[0].used;
    *bytes = layer_bytes(&all[0]);
    for (int i = 0; status == DONE && i < s->n_cells; i++) {
        d.cur = &all[i];
        d.next = &all[i + 1];
        status = forward_step(s, &d, i, deadline, budget - *states, &no_halt);
        side_turn(&d, status);
        *states += all[i + 1].used;
        if (status == DONE && *states > budget) status = BUDGET;
        if (status == DONE && all[i + 1].used < all[i + 1].room) {  /* the layer is whole: give back its spare room */
            Entry *fitted = realloc(all[i + 1].entries, (all[i + 1].used ? all[i + 1].used : 1) * sizeof(Entry));
            if (fitted) {
                all[i + 1].entries = fitted;
                all[i + 1].room = all[i + 1].used ? all[i + 1].used : 1;
            }
        }
        *bytes += layer_bytes(&all[i + 1]);
    }
    side_close(&d);
    return status;
}

/* A step of the walk: the option placed (-1: none, the cell was covered) and the state
 * of the next layer it leads to. */
typedef struct {
    int option;
    uint32_t next;
} Edge;

typedef struct {
    Edge *edges;
    size_t used, room;
} Edges;

/* A live state's steps are ``edges[start .. start + n)``, kept in its ``value`` (which
 * only the forward scan's pruning reads) as start << EDGE_BITS | n. */
enum { EDGE_BITS = 20 };

static int edges_add(Edges *g, int option, size_t next) {
    if (!grown((void **)&g->edges, &g->room, g->used, 1, sizeof(Edge))) return NO_MEMORY;
    g->edges[g->used++] = (Edge){option, (uint32_t)next};
    return DONE;
}

/* From the last layer back, each state's count becomes 1 when some cover finishes it
 * (it is live), else 0; a state the scan kept dead (count 0) stays so.  Each live state's
 * steps to live states are kept (``Edges``, at most twice ``budget``: an edge is a sixth
 * of a state's bytes), so that the walk never looks up a state. */
static int completions(const Frontier *s, Layer *all, Edges *g, double deadline, size_t budget) {
    Layer *last = &all[s->n_cells];
    for (size_t k = 0; k < last->used; k++) last->entries[k].count = last->entries[k].count && finished(s, &last->entries[k]);
    unsigned long work = 0;
    for (int i = s->n_cells - 1; i >= 0; i--) {
        const Layer *next = &all[i + 1];
        for (size_t k = 0; k < all[i].used; k++) {
            if ((++work & 4095) == 0) {
                if (s->cancel) return CANCELLED;
                if (deadline > 0 && now() > deadline) return TIMED_OUT;
            }
            Entry *e = &all[i].entries[k];
            if (e->count == 0) continue;
            size_t start = g->used;
            for (int o = (e->window & 1) ? -1 : s->first[i]; o < ((e->window & 1) ? 0 : s->first[i + 1]); o++) {
                const Entry *n = successor(s, next, e, o);
                if (n != NULL && n->count && edges_add(g, o, (size_t)(n - next->entries))) return NO_MEMORY;
            }
            if (g->used - start >= (1u << EDGE_BITS)) return NO_MEMORY;
            if (g->used > 2 * budget) return BUDGET;
            e->count = g->used > start;
            e->value = (uint64_t)start << EDGE_BITS | (g->used - start);
        }
    }
    return DONE;
}

enum { LIMIT = 7, FAILED = 8 };   /* a listing's other ends: its solution limit, a failed handover */
enum { UNTRIED = -2 };
/* On several threads, the walk's paths are shared out by their node at the first layer
 * with at least this many live states per thread: each thread walks the paths above it
 * and takes the nodes there one at a time, as it finishes the last. */
enum { NODES_PER_THREAD = 64, MOST_WALKERS = 2, WAITING_BYTES = 16 << 20 };

/* A step of a path: the state at a layer, the next of its edges to take (UNTRIED: the
 * first), the option placed (-1: none). */
typedef struct {
    size_t at;
    int next, placed;
} Step;

/* What the threads of one walk share.  A handover takes ``lock`` before the GIL, so
 * that a thread holding the GIL never waits for it. */
typedef struct {
    const Frontier *s;
    const Layer *all;
    const Edge *edges;
    PyObject *callback;
    const int *numbers;                 /* option -> the caller's number (lines are numbered already) */
    int split;                          /* the layer whose path nodes are shared out; -1: one thread */
    unsigned long long next_node;       /* the next node there to take (atomic) */
    unsigned long long limit, solutions;/* solutions listed, by all threads (atomic) */
    long long firsts_left;              /* solutions still to hand on as variables too */
    int halt;                           /* the first thread's status other than DONE (atomic) */
    double deadline;
    pthread_mutex_t lock;
    PyThreadState *main_state;          /* the calling thread's, while it walks */
    PyObject *error[3];                 /* a helper thread's exception, for the caller */
} Walk;

typedef struct {
    Walk *w;
    Held held;
    int main;                           /* the calling thread (else a helper, unknown to Python) */
} Walker;

static void walk_halt(Walk *w, int status) {
    int none = DONE;
    __atomic_compare_exchange_n(&w->halt, &none, status, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* Hand a walker's held solutions on.  Their lines are made here, without the GIL or the
 * lock; while another walker hands its own on (writing them, as a rule), they wait, up to
 * WAITING_BYTES, and this walker walks on: the write and the walk overlap.  Then, holding
 * the lock and the GIL, the call to Python.  ``wait``: hand on now, lock or not (the
 * walk's end).  0 (the walk halted) on failure. */
static int walker_hand_over(Walker *me, double at, int wait) {
    Walk *w = me->w;
    Lines *l = me->held.lines;
    int lines = l != NULL && !me->held.out_of_memory;
    if (lines && lines_make(&me->held, l) < 0) lines = 0, me->held.out_of_memory = 1;
    if (lines) held_emptied(&me->held, at);
    if (lines && !wait && l->out_len < WAITING_BYTES) {
        if (pthread_mutex_trylock(&w->lock)) return 1;
    } else {
        pthread_mutex_lock(&w->lock);
    }
    PyGILState_STATE gil = PyGILState_UNLOCKED;
    if (me->main) PyEval_RestoreThread(w->main_state);
    else gil = PyGILState_Ensure();
    int ok;
    if (l == NULL) ok = held_hand_over(&me->held, w->callback, at);
    else if (me->held.out_of_memory) ok = (PyErr_NoMemory(), 0);
    else {
        long long before = l->firsts;
        ok = lines_give(l, w->firsts_left);
        w->firsts_left -= before - l->firsts;
    }
    if (!ok && !me->main && w->error[0] == NULL) PyErr_Fetch(&w->error[0], &w->error[1], &w->error[2]);
    else if (!ok && !me->main) PyErr_Clear();
    if (me->main) w->main_state = PyEval_SaveThread();
    else PyGILState_Release(gil);
    pthread_mutex_unlock(&w->lock);
    if (!ok) walk_halt(w, FAILED);
    return ok;
}

/* Every path of states with a completion from the first state to the last layer: a
 * cover each, handed on (or counted: callback None).  On several threads, a walker
 * takes the paths below the nodes at layer ``split`` it claims. */
static int walk_paths(Walker *me) {
    Walk *w = me->w;
    const Frontier *s = w->s;
    const Layer *all = w->all;
    int n = s->n_cells, i = 0, depth = 0;
    Step *path = calloc(n + 1, sizeof(Step));
    int *chosen = calloc(n + 1, sizeof(int));
    if (!path || !chosen) { free(path); free(chosen); return NO_MEMORY; }
    path[0] = (Step){0, UNTRIED, -1};
    unsigned long work = 0;
    unsigned long long node = 0, mine = w->split >= 0 ? __atomic_fetch_add(&w->next_node, 1, __ATOMIC_RELAXED) : 0;
    int status = all[0].used && all[0].entries[0].count ? DONE : -1;
    while (i >= 0 && status == DONE) {
        if ((++work & 4095) == 0) {
            double at = now();
            if (s->cancel) status = CANCELLED;
            else if (w->deadline > 0 && at > w->deadline) status = TIMED_OUT;
            else if (__atomic_load_n(&w->halt, __ATOMIC_RELAXED)) status = HALTED;
            else if (w->callback != Py_None && held_due(&me->held, at) && !walker_hand_over(me, at, 0)) status = FAILED;
            if (status != DONE) break;
        }
        if (i == w->split && path[i].next == UNTRIED) {  /* a node to take, or to leave to another thread */
            if (node++ != mine) {
                if (--i >= 0 && path[i].placed >= 0) depth--;
                continue;
            }
            mine = __atomic_fetch_add(&w->next_node, 1, __ATOMIC_RELAXED);
        }
        if (i == n) {
            unsigned long long listed = __atomic_fetch_add(&w->solutions, 1, __ATOMIC_RELAXED);
            if (w->limit && listed >= w->limit) { status = LIMIT; break; }
            if (w->callback != Py_None) {
                held_add(&me->held, chosen, depth, me->held.lines ? NULL : w->numbers);
                /* A full batch goes at once; one waiting too long, at the next look at the clock. */
                if (me->held.count >= me->held.batch && !walker_hand_over(me, now(), 0)) { status = FAILED; break; }
            }
            if (w->limit && listed + 1 >= w->limit) { status = LIMIT; break; }
            if (--i >= 0 && path[i].placed >= 0) depth--;
            continue;
        }
        const Entry *e = &all[i].entries[path[i].at];
        int taken = path[i].next == UNTRIED ? 0 : path[i].next;
        if ((uint64_t)taken >= (e->value & ((1u << EDGE_BITS) - 1))) {
            if (--i >= 0 && path[i].placed >= 0) depth--;
            continue;
        }
        const Edge *step = &w->edges[(e->value >> EDGE_BITS) + taken];
        path[i].next = taken + 1;
        path[i].placed = step->option;
        if (step->option >= 0) chosen[depth++] = step->option;
        i++;
        path[i] = (Step){step->next, UNTRIED, -1};
    }
    free(path);
    free(chosen);
    if (status == -1) status = DONE;
    /* What was found before the end, whatever ended it, is handed on. */
    int waiting = me->held.count || (me->held.lines != NULL && me->held.lines->made);
    if (status != FAILED && w->callback != Py_None && waiting && !walker_hand_over(me, now(), 1)) status = FAILED;
    if (status != DONE && status != HALTED) walk_halt(w, status);
    return status;
}

static void *walk_helper(void *argument) {
    walk_paths(argument);  /* its end is in the walk's ``halt`` */
    return NULL;
}

/* The layer whose path nodes ``threads`` threads share out: the first with at least
 * NODES_PER_THREAD live states per thread; -1 (one thread) when none has. */
static int split_layer(const Frontier *s, const Layer *all, int threads) {
    if (threads < 2) return -1;
    for (int i = 1; i < s->n_cells; i++) {
        size_t live = 0;
        for (size_t k = 0; k < all[i].used && live < (size_t)NODES_PER_THREAD * threads; k++) live += all[i].entries[k].count != 0;
        if (live >= (size_t)NODES_PER_THREAD * threads) return i;
    }
    return -1;
}

/* list(callback, limit, time_limit, budget, numbers[, table_time[, threads]])
 *     -> (status, solutions, states, bytes, threads that walked)
 *   callback: None (count the covers by listing them), a callable or a line request;
 *   numbers: per option (as given) the caller's number for it on a solution;
 *   budget: the most states the table may hold in all its layers;
 *   table_time: seconds the table may take to make (0: as long as the run), so that a
 *   caller can give it up and search instead: nothing is listed before it is whole;
 *   threads: walk the table's paths on up to two threads (the table is made on one). */
static PyObject *Frontier_list(Frontier *s, PyObject *args) {
    PyObject *callback, *given;
    unsigned long long limit, budget;
    double time_limit, table_time = 0;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "OKdKO|di", &callback, &limit, &time_limit, &budget, &given, &table_time, &threads))
        return NULL;
    Py_ssize_t n_numbers;
    int *numbers = ints_of(given, &n_numbers, "numbers");
    if (numbers == NULL) return NULL;
    if (n_numbers < s->first[s->n_cells]) {
        free(numbers);
        PyErr_SetString(PyExc_ValueError, "numbers: one per option");
        return NULL;
    }
    if (threads > MOST_WALKERS) threads = MOST_WALKERS;
    if (threads < 1) threads = 1;
    Layer *all = calloc((size_t)s->n_cells + 1, sizeof(Layer));
    Walker walkers[MOST_WALKERS];
    memset(walkers, 0, sizeof walkers);
    Walk w = {.s = s, .all = all, .callback = callback, .numbers = numbers, .limit = limit, .split = -1};
    int ready = all != NULL, status = DONE;
    for (int t = 0; ready && t < threads; t++) {
        walkers[t] = (Walker){.w = &w, .main = t == 0};
        ready = held_init(&walkers[t].held, s->n_cells + 1);
    }
    if (!ready) PyErr_NoMemory();
    /* Each walker's lines: every text an option's line may need known now, with the GIL,
     * and numbered as the caller numbers the options. */
    for (int t = 0; ready && t < threads; t++) {
        ready = held_begin(&walkers[t].held, callback, now());
        Lines *l = walkers[t].held.lines;
        if (ready && l != NULL) w.firsts_left = l->firsts;
        for (int o = 0; ready && l != NULL && o < s->first[s->n_cells]; o++) {
            if (numbers[o] >= l->n_variables) {
                PyErr_SetString(PyExc_ValueError, "a line request names no variable for an option");
                ready = 0;
            } else {
                ready = lines_know_variable(l, l->variables[numbers[o]]);
            }
        }
        if (ready && l != NULL) ready = lines_room(l, s->n_cells + 1);
        if (ready && l != NULL) {  /* the walk hands on options numbered as given */
            int *variables = malloc(sizeof(int) * (s->first[s->n_cells] + 1));
            ready = variables != NULL;
            for (int o = 0; ready && o < s->first[s->n_cells]; o++) variables[o] = l->variables[numbers[o]];
            if (ready) { free(l->variables); l->variables = variables; l->n_variables = s->first[s->n_cells]; }
            else PyErr_NoMemory();
        }
    }
    size_t states = 0, bytes = 0;
    int failed = !ready;
    if (ready) {
        double deadline = time_limit > 0 ? now() + time_limit : 0, table_deadline = deadline;
        if (table_time > 0 && (deadline == 0 || now() + table_time < deadline)) table_deadline = now() + table_time;
        w.deadline = deadline;
        pthread_mutex_init(&w.lock, NULL);
        Py_INCREF(callback);
        w.main_state = PyEval_SaveThread();
        status = s->cancel ? CANCELLED : keep_layers(s, all, table_deadline, (size_t)budget, &states, &bytes);
        Edges edges = {0};
        if (status == DONE) status = completions(s, all, &edges, table_deadline, (size_t)budget);
        bytes += edges.room * sizeof(Edge);
        w.edges = edges.edges;
        for (int i = 0; i <= s->n_cells; i++) {  /* the walk follows the edges: no more look-ups */
            free(all[i].index);
            all[i].index = NULL;
            all[i].capacity = 0;
        }
        if (status == DONE) {
            w.split = split_layer(s, all, threads);
            pthread_t helper;
            int helping = w.split >= 0 && threads > 1 && !pthread_create(&helper, NULL, walk_helper, &walkers[1]);
            if (!helping) w.split = -1;
            walk_paths(&walkers[0]);
            if (helping) pthread_join(helper, NULL);
            status = w.halt;
        }
        for (int i = 0; i <= s->n_cells; i++) layer_free(&all[i]);
        free(edges.edges);
        PyEval_RestoreThread(w.main_state);
        pthread_mutex_destroy(&w.lock);
        Py_DECREF(callback);
        if (w.error[0] != NULL) PyErr_Restore(w.error[0], w.error[1], w.error[2]);
        failed = status == FAILED;
    }
    for (int t = 0; t < threads; t++) {
        if (!held_end(&walkers[t].held, callback, now(), 1)) failed = 1;  /* each walker handed its own on */
        held_free(&walkers[t].held);
    }
    free(all);
    free(numbers);
    if (failed) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "a listing's handover failed");
        return NULL;
    }
    static const char *names[] = {"completed", "interrupted", "time_limit", "budget", "overflow", "no_memory", "",
                                  "solution_limit"};
    unsigned long long solutions = w.solutions;
    if (limit && solutions > limit) solutions = limit;
    return Py_BuildValue("(sKnni)", names[status], solutions, (Py_ssize_t)states, (Py_ssize_t)bytes,
                         w.split >= 0 ? threads : 1);
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

/* run(budget, time_limit[, threads[, meet]]) -> (status, count, peak states, peak bytes) */
static PyObject *Frontier_run(Frontier *s, PyObject *args) {
    unsigned long long budget;
    double time_limit;
    int threads = 1, meet = -1;
    if (!PyArg_ParseTuple(args, "Kd|ii", &budget, &time_limit, &threads, &meet)) return NULL;
    if (meet > s->n_cells) meet = s->n_cells;
    double deadline = time_limit > 0 ? now() + time_limit : 0;
    u128 total = 0;
    int status;
    s->peak_states = s->peak_bytes = 0;
    Py_BEGIN_ALLOW_THREADS
    if (s->cancel) status = CANCELLED;
    else if (threads < 2) status = scan(s, deadline, (size_t)budget, &total, meet);
    else status = scan_both(s, deadline, (size_t)budget, &total, meet);
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
     "run(budget, time_limit[, threads[, meet]]) -> (status, count, peak states, peak bytes); the scan meets in the "
     "middle, on two threads where their times balance if threads > 1, else on one where a step costs both sides the "
     "same (or at cell ``meet``, for tests)"},
    {"list", (PyCFunction)Frontier_list, METH_VARARGS,
     "list(callback, limit, time_limit, budget, numbers[, table_time[, threads]]) -> (status, solutions, states, "
     "bytes, threads that walked): every cover, from a table of the forward scan's layers (at most ``budget`` states in all, made within "
     "``table_time`` seconds), walked on up to two threads; callback None counts them"},
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
