/* Listing exact covers of at most 256 items on bitboards, in C.
 *
 * The items are numbered in a scan order (a tiling's cells column by column along the
 * shorter side, then the pieces used once) and a state is a bitboard of covered items
 * (1 to 4 machine words).  An option is a mask; the search first branches on the item
 * it is told (the X pentomino, restricted to 8 placements by symmetry breaking), then
 * always fills the first empty item with
 * the options whose first item it is, so there is no list to unlink and no column to
 * choose: one AND per word per candidate.  Counted groups (a piece's copies,
 * with a lower and an upper bound) work as in the dancing-links kernel: the upper bound
 * is checked on placing, the lower bound when the board is full.
 *
 * The search runs with the GIL released, calls the Python callback once per solution
 * (with the chosen options, numbered as given) or hands on their .jsonl lines (in
 * batches: _handover.h), checks a cancel flag and the clock
 * every few thousand nodes, and stops after ``limit`` solutions when ``limit`` > 0.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_cover_input.h"
#include "_handover.h"

#define MAX_WORDS 4

enum { DONE = 0, LIMIT = 1, CANCELLED = 2, TIMED_OUT = 3, FAILED = 4 };

typedef struct {
    PyObject_HEAD
    int n_items, words, n_options, n_groups;
    uint64_t *mask;                     /* option k's mask: words at mask[k * MAX_WORDS] */
    int *option_id;                     /* the caller's number of each (sorted) option */
    int *first;                         /* options whose first item is i: first[i] .. first[i+1]-1 */
    int *runs, *run_key, *run_end;      /* item i's options in runs runs[i] .. runs[i+1]-1: run r ends
                                           before run_end[r], all its options cover item run_key[r] (-1: none) */
    int *root, n_root;                  /* the options branched on first (those of the item with fewest) */
    int *fixed, n_fixed;                /* options placed before the search (a part of the tree split) */
    int *member_start, *member_group;   /* option -> its (group, weight) pairs */
    long long *member_weight, *total, *lo, *hi;
    int *chosen;
    volatile int cancel;
    /* per run */
    unsigned long long solutions, limit, nodes;
    double deadline;
    int status, running;
    PyObject *callback;
    PyThreadState *thread_state;
    Held held;                          /* solutions not yet handed to the callback */
} Board;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Hand the held solutions to the callback, taking the GIL for it; returns 0 to stop. */
#define HAND_OVER(s, at) held_hand_over_released(&(s)->held, (s)->callback, &(s)->thread_state, at, &(s)->status, FAILED)

static int report(Board *s, int depth) {
    for (int g = 0; g < s->n_groups; g++)
        if (s->total[g] < s->lo[g]) return 1;
    s->solutions++;
    if (s->callback != Py_None) {
        held_add(&s->held, s->chosen, depth, s->option_id);
        double at = now();
        if (held_due(&s->held, at) && !HAND_OVER(s, at)) return 0;
    }
    if (s->limit && s->solutions >= s->limit) { s->status = LIMIT; return 0; }
    return 1;
}

static inline int fits(const Board *s, int o) {
    for (int k = s->member_start[o]; k < s->member_start[o + 1]; k++) {
        int g = s->member_group[k];
        if (s->total[g] + s->member_weight[k] > s->hi[g]) return 0;
    }
    return 1;
}

static inline void count_in(Board *s, int o, int sign) {
    for (int k = s->member_start[o]; k < s->member_start[o + 1]; k++)
        s->total[s->member_group[k]] += sign * s->member_weight[k];
}

/* One search per board width, so that the loops over words unroll. */
#define SEARCH(W)                                                                       \
    static int search_##W(Board *s, const uint64_t *board, int depth) {                 \
        int word = 0;                                                                   \
        while (word < W && board[word] == ~0ULL) word++;                                \
        if (word == W) return report(s, depth);                                         \
        if ((++s->nodes & 4095) == 0) {                                                 \
            if (s->cancel) { s->status = CANCELLED; return 0; }                         \
            double at = now();                                                          \
            if (s->deadline > 0 && at > s->deadline) { s->status = TIMED_OUT; return 0; } \
            if (held_due(&s->held, at) && !HAND_OVER(s, at)) return 0;                  \
        }                                                                               \
        int item = 64 * word + __builtin_ctzll(~board[word]);                           \
        uint64_t next[W];                                                               \
        int o = s->first[item];                                                         \
        for (int r = s->runs[item]; r < s->runs[item + 1]; r++) {                       \
            int key = s->run_key[r], end = s->run_end[r];                               \
            if (key >= 0 && (board[key >> 6] >> (key & 63) & 1)) { o = end; continue; } \
            for (; o < end; o++) {                                                      \
                const uint64_t *m = s->mask + (size_t)o * MAX_WORDS;                    \
                int clash = 0;                                                          \
                for (int w = 0; w < W; w++) clash |= (m[w] & board[w]) != 0;            \
                if (clash) continue;                                                    \
                int counted = s->member_start[o] < s->member_start[o + 1];              \
                if (counted && !fits(s, o)) continue;                                   \
                for (int w = 0; w < W; w++) next[w] = board[w] | m[w];                  \
                if (counted) count_in(s, o, 1);                                         \
                s->chosen[depth] = o;                                                   \
                int go_on = search_##W(s, next, depth + 1);                             \
                if (counted) count_in(s, o, -1);                                        \
                if (!go_on) return 0;                                                   \
            }                                                                           \
        }                                                                               \
        return 1;                                                                       \
    }

SEARCH(1)
SEARCH(2)
SEARCH(3)
SEARCH(4)

static void Board_dealloc(Board *s) {
    free(s->mask); free(s->option_id); free(s->first); free(s->runs); free(s->run_key); free(s->run_end); free(s->root); free(s->fixed); free(s->member_start); free(s->member_group);
    free(s->member_weight); free(s->total); free(s->lo); free(s->hi); free(s->chosen);
    held_free(&s->held);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

typedef struct { int first, key, option; } Sorted;

static int by_first_then_key(const void *a, const void *b) {
    const Sorted *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->option < y->option ? -1 : x->option > y->option;
}

/* Board(n_items, options, groups[, first_item[, n_cells[, fixed]]])
 *   options: per option (items, [(group, weight)]), items numbered 0..n_items-1 in scan order;
 *   groups:  per group (lo, hi);
 *   first_item: the item branched on first (default 0, the first in scan order);
 *   n_cells: the items before it are cells, the ones from it pieces used once (default: all cells);
 *   fixed: options (numbered as given) placed before the search, as the tree split's part
 *          fixes them, so that the search is the subtree of the whole search below them. */
static int Board_init(Board *s, PyObject *args, PyObject *kwds) {
    int n_items;
    PyObject *options, *groups;
    int fewest = -1, n_cells = -1;
    PyObject *fixed = NULL;
    if (!PyArg_ParseTuple(args, "iOO|iiO", &n_items, &options, &groups, &fewest, &n_cells, &fixed)) return -1;
    if (n_cells < 0 || n_cells > n_items) n_cells = n_items;
    if (n_items < 1 || n_items > 64 * MAX_WORDS) {
        PyErr_SetString(PyExc_ValueError, "a bitboard holds 1 to 256 items");
        return -1;
    }
    CoverInput in;
    if (cover_input_read(&in, options, groups, 0, 1, 0, n_items - 1)) { cover_input_free(&in); return -1; }
    int n_options = in.n_options;
    s->n_items = n_items;
    s->words = (n_items + 63) / 64;
    s->n_options = n_options;
    s->n_groups = in.n_groups;
    s->lo = in.lo; s->hi = in.hi; in.lo = in.hi = NULL;   /* kept as read */
    s->mask = calloc((n_options + 1) * MAX_WORDS, sizeof(uint64_t));
    s->option_id = calloc(n_options + 1, sizeof(int));
    s->first = calloc(n_items + 2, sizeof(int));
    s->member_start = calloc(n_options + 2, sizeof(int));
    s->member_group = calloc(in.member_start[n_options] + 1, sizeof(int));
    s->member_weight = calloc(in.member_start[n_options] + 1, sizeof(long long));
    s->total = calloc(s->n_groups + 1, sizeof(long long));
    s->chosen = calloc(n_items + 1, sizeof(int));
    s->runs = calloc(n_items + 2, sizeof(int));
    s->run_key = calloc(n_options + 1, sizeof(int));
    s->run_end = calloc(n_options + 1, sizeof(int));
    s->root = calloc(n_options + 1, sizeof(int));
    Sorted *order = calloc(n_options + 1, sizeof(Sorted));
    if (!held_init(&s->held, n_items) || !s->mask || !s->option_id || !s->first || !s->member_start ||
        !s->member_group || !s->member_weight || !s->total || !s->chosen || !s->runs || !s->run_key ||
        !s->run_end || !s->root || !order) {
        free(order);
        cover_input_free(&in);
        PyErr_NoMemory();
        return -1;
    }
    /* Sort the options by first item, then by the item after the cells they cover (a
     * piece used once), so that a piece already placed skips its run at once. */
    for (int o = 0; o < n_options; o++) {
        int first = n_items, last = 0;
        for (int j = in.item_start[o]; j < in.item_start[o + 1]; j++) {
            if (in.items[j] < first) first = in.items[j];
            if (in.items[j] > last) last = in.items[j];
        }
        order[o].first = first;
        order[o].key = last >= n_cells ? last : -1;
        order[o].option = o;
    }
    qsort(order, n_options, sizeof(Sorted), by_first_then_key);
    /* Masks and memberships in sorted order; runs of options with the same first item and key. */
    int n_runs = 0, k = 0;
    for (int sorted = 0; sorted < n_options; sorted++) {
        int o = order[sorted].option;
        s->option_id[sorted] = o;
        for (int j = in.item_start[o]; j < in.item_start[o + 1]; j++)
            s->mask[(size_t)sorted * MAX_WORDS + in.items[j] / 64] |= 1ULL << (in.items[j] % 64);
        s->member_start[sorted] = k;
        for (int j = in.member_start[o]; j < in.member_start[o + 1]; j++, k++) {
            s->member_group[k] = in.member_group[j];
            s->member_weight[k] = in.member_weight[j];
        }
        s->first[order[sorted].first + 1]++;
        if (sorted == 0 || order[sorted].first != order[sorted - 1].first || order[sorted].key != order[sorted - 1].key) {
            s->runs[order[sorted].first + 1]++;
            s->run_key[n_runs++] = order[sorted].key;
        }
        s->run_end[n_runs - 1] = sorted + 1;
    }
    s->member_start[n_options] = k;
    for (int i = 0; i < n_items; i++) {
        s->first[i + 1] += s->first[i];
        s->runs[i + 1] += s->runs[i];
    }
    /* The options of the item branched on first (in sorted order); by default the first item. */
    if (fewest < 0 || fewest >= n_items) fewest = 0;
    for (int o = 0; o < n_options; o++)
        if (s->mask[(size_t)o * MAX_WORDS + fewest / 64] >> (fewest % 64) & 1) s->root[s->n_root++] = o;
    free(order);
    cover_input_free(&in);
    if (fixed != NULL && fixed != Py_None) {
        PyObject *seq = PySequence_Fast(fixed, "fixed: a sequence of option numbers");
        if (!seq) return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        s->fixed = calloc(n + 1, sizeof(int));
        if (!s->fixed) { Py_DECREF(seq); PyErr_NoMemory(); return -1; }
        for (Py_ssize_t k = 0; k < n; k++) {
            long given = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
            int found = -1;
            for (int o = 0; o < n_options && found < 0; o++)
                if (s->option_id[o] == given) found = o;
            if (found < 0) {
                Py_DECREF(seq);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "fixed: no such option");
                return -1;
            }
            s->fixed[s->n_fixed++] = found;
        }
        Py_DECREF(seq);
    }
    return 0;
}

/* run(callback, limit, time_limit) -> (status, solutions)
 * callback: None (count only), a callable or a line request (_handover.h).
 * status: "completed", "solution_limit", "interrupted" or "time_limit". */
static PyObject *Board_run(Board *s, PyObject *args) {
    PyObject *callback;
    unsigned long long limit;
    double time_limit;
    if (!PyArg_ParseTuple(args, "OKd", &callback, &limit, &time_limit)) return NULL;
    if (s->running) { PyErr_SetString(PyExc_RuntimeError, "this search is already running"); return NULL; }
    s->callback = callback;
    s->limit = limit;
    s->solutions = 0;
    s->nodes = 0;
    s->status = DONE;
    s->deadline = time_limit > 0 ? now() + time_limit : 0;
    memset(s->total, 0, sizeof(long long) * (s->n_groups + 1));
    if (!held_begin(&s->held, callback, now())) return NULL;
    uint64_t board[MAX_WORDS];
    for (int w = 0; w < MAX_WORDS; w++) {
        int bits = s->n_items - 64 * w;   /* items in this word; the rest count as covered */
        board[w] = bits >= 64 ? 0 : bits <= 0 ? ~0ULL : ~0ULL << bits;
    }
    s->running = 1;
    Py_INCREF(callback);
    s->thread_state = PyEval_SaveThread();
    int base = s->n_fixed, full = 1;  /* the fixed options are placed first */
    for (int k = 0; k < base; k++) {
        for (int w = 0; w < MAX_WORDS; w++) board[w] |= s->mask[(size_t)s->fixed[k] * MAX_WORDS + w];
        count_in(s, s->fixed[k], 1);
        s->chosen[k] = s->fixed[k];
    }
    for (int w = 0; w < MAX_WORDS; w++) full &= board[w] == ~0ULL;
    for (int g = 0; g < s->n_groups; g++)
        if (s->total[g] > s->hi[g]) full = -1;  /* the fixed options pass a piece's bound: nothing below */
    if (base > 0 && full == 1) report(s, base);
    for (int k = 0; k < s->n_root && s->status == DONE && !full; k++) {
        int o = s->root[k];
        if (s->cancel) { s->status = CANCELLED; break; }
        if (!fits(s, o)) continue;
        uint64_t next[MAX_WORDS];
        int clash = 0;
        for (int w = 0; w < MAX_WORDS; w++) {
            clash |= (board[w] & s->mask[(size_t)o * MAX_WORDS + w]) != 0;
            next[w] = board[w] | s->mask[(size_t)o * MAX_WORDS + w];
        }
        if (clash) continue;
        count_in(s, o, 1);
        s->chosen[base] = o;
        if (s->words == 1) search_1(s, next, base + 1);
        else if (s->words == 2) search_2(s, next, base + 1);
        else if (s->words == 3) search_3(s, next, base + 1);
        else search_4(s, next, base + 1);
        count_in(s, o, -1);
    }
    for (int k = 0; k < base; k++) count_in(s, s->fixed[k], -1);
    PyEval_RestoreThread(s->thread_state);
    if (!held_end(&s->held, callback, now(), s->status == FAILED)) s->status = FAILED;
    s->running = 0;
    Py_DECREF(callback);
    if (s->status == FAILED) return NULL;
    static const char *names[] = {"completed", "solution_limit", "interrupted", "time_limit"};
    return Py_BuildValue("(sK)", names[s->status], s->solutions);
}

static PyObject *Board_cancel(Board *s, PyObject *unused) {
    s->cancel = 1;
    Py_RETURN_NONE;
}

static PyObject *Board_nodes(Board *s, void *unused) {
    return PyLong_FromUnsignedLongLong(s->nodes);
}

static PyGetSetDef Board_getset[] = {
    {"nodes", (getter)Board_nodes, NULL, "the nodes the last run searched (options placed)", NULL},
    {NULL}
};

static PyMethodDef Board_methods[] = {
    {"run", (PyCFunction)Board_run, METH_VARARGS,
     "run(callback, limit, time_limit) -> (status, solutions); callback None counts only"},
    {"cancel", (PyCFunction)Board_cancel, METH_NOARGS, "ask a running search to stop soon (any thread)"},
    {NULL}
};

static PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "polytile_exactcover._bitboard.Board",
    .tp_basicsize = sizeof(Board),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Board(n_items, options, groups[, first_item[, n_cells]]): an exact cover of at most 256 items on bitboards",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Board_init,
    .tp_dealloc = (destructor)Board_dealloc,
    .tp_methods = Board_methods,
    .tp_getset = Board_getset,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_bitboard", "Exact cover on bitboards", -1, NULL};

PyMODINIT_FUNC PyInit__bitboard(void) {
    if (PyType_Ready(&BoardType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&BoardType);
    if (PyModule_AddObject(m, "Board", (PyObject *)&BoardType) < 0) {
        Py_DECREF(&BoardType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
