/* Dancing links (Knuth's Algorithm X, dlx1 layout) with counted groups.
 *
 * Primary items must be covered exactly once.  Each option may also add a positive
 * weight to some *groups* (piece-count rows); a group's total must end in [lo, hi].
 * The upper bound is enforced while searching (an option that would overflow a group
 * is skipped), the lower bound when every item is covered.
 *
 * The search runs with the GIL released.  It calls the Python callback once per
 * solution, or hands on their .jsonl lines (taking the GIL back for a batch: _handover.h), checks a cancel
 * flag and the clock every few thousand nodes, and stops after ``limit`` solutions when ``limit`` > 0 (and
 * after ``node_limit`` nodes when that is > 0: a probe of how hard the search is).
 *
 * A search stopped by its node limit can be resumed where it stopped: on the way back up
 * each level keeps the option it was trying (``path``), and since dancing links restores
 * the lists exactly, a resumed search chooses the same items again and starts each level
 * of that path at the kept option, so the probe's nodes are never searched twice.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_cover_input.h"
#include "_handover.h"

enum { DONE = 0, LIMIT = 1, CANCELLED = 2, TIMED_OUT = 3, NODE_LIMIT = 4, FAILED = 5 };

typedef struct {
    PyObject_HEAD
    int n_items, n_nodes, n_options, n_groups;
    int *llink, *rlink;            /* item headers, 0 = root */
    int *top, *ulink, *dlink;      /* nodes; top <= 0 marks a spacer */
    int *len;
    int *node_option;              /* option of each regular node */
    int *group_start, *group_id;   /* option -> its (group, weight) pairs */
    long long *group_weight;
    long long *count_in_group, *lo, *hi;
    int *chosen;                   /* option chosen at each level */
    int *path;                     /* node tried at each level when the node limit stopped it */
    int stop_depth, resumable, resuming;
    volatile int cancel;
    /* per run */
    unsigned long long solutions, limit, nodes, node_limit;
    double deadline;
    int status, running;
    PyObject *callback;
    PyThreadState *thread_state;
    Held held;                     /* solutions not yet handed to the callback */
} Search;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void hide(Search *s, int p) {
    for (int q = p + 1; q != p;) {
        int x = s->top[q];
        if (x <= 0) { q = s->ulink[q]; continue; }
        int u = s->ulink[q], d = s->dlink[q];
        s->dlink[u] = d; s->ulink[d] = u; s->len[x]--; q++;
    }
}

static void unhide(Search *s, int p) {
    for (int q = p - 1; q != p;) {
        int x = s->top[q];
        if (x <= 0) { q = s->dlink[q]; continue; }
        int u = s->ulink[q], d = s->dlink[q];
        s->dlink[u] = q; s->ulink[d] = q; s->len[x]++; q--;
    }
}

static void cover(Search *s, int i) {
    for (int p = s->dlink[i]; p != i; p = s->dlink[p]) hide(s, p);
    int l = s->llink[i], r = s->rlink[i];
    s->rlink[l] = r; s->llink[r] = l;
}

static void uncover(Search *s, int i) {
    int l = s->llink[i], r = s->rlink[i];
    s->rlink[l] = i; s->llink[r] = i;
    for (int p = s->ulink[i]; p != i; p = s->ulink[p]) unhide(s, p);
}

static int fits(Search *s, int option) {
    for (int k = s->group_start[option]; k < s->group_start[option + 1]; k++) {
        int g = s->group_id[k];
        if (s->count_in_group[g] + s->group_weight[k] > s->hi[g]) return 0;
    }
    return 1;
}

static void add_groups(Search *s, int option, int sign) {
    for (int k = s->group_start[option]; k < s->group_start[option + 1]; k++)
        s->count_in_group[s->group_id[k]] += sign * s->group_weight[k];
}

/* Hand the held solutions to the callback, taking the GIL for it; returns 0 to stop. */
#define HAND_OVER(s, at) held_hand_over_released(&(s)->held, (s)->callback, &(s)->thread_state, at, &(s)->status, FAILED)

/* Report one solution; returns 0 to stop the search. */
static int report(Search *s, int depth) {
    for (int g = 0; g < s->n_groups; g++)
        if (s->count_in_group[g] < s->lo[g]) return 1;
    s->solutions++;
    if (s->callback != Py_None) {
        held_add(&s->held, s->chosen, depth, NULL);
        double at = now();
        if (held_due(&s->held, at) && !HAND_OVER(s, at)) return 0;
    }
    if (s->limit && s->solutions >= s->limit) { s->status = LIMIT; return 0; }
    return 1;
}

/* Returns 0 when the whole search must stop. */
static int search(Search *s, int depth) {
    if (s->rlink[0] == 0) return report(s, depth);
    if (s->resuming) {
        /* Down the path again, uncounted; the node that stopped was counted by that run. */
        if (depth == s->stop_depth) s->resuming = 0;
    } else if (++s->nodes == s->node_limit) {
        s->status = NODE_LIMIT;
        s->stop_depth = depth;
        return 0;
    }
    if ((s->nodes & 4095) == 0) {
        if (s->cancel) { s->status = CANCELLED; return 0; }
        double at = now();
        if (s->deadline > 0 && at > s->deadline) { s->status = TIMED_OUT; return 0; }
        if (held_due(&s->held, at) && !HAND_OVER(s, at)) return 0;
    }
    int best = -1, fewest = 0x7fffffff;
    for (int i = s->rlink[0]; i != 0; i = s->rlink[i]) {
        if (s->len[i] < fewest) { fewest = s->len[i]; best = i; if (fewest <= 1) break; }
    }
    if (fewest == 0) return 1;
    int go_on = 1;
    cover(s, best);
    for (int r = s->resuming ? s->path[depth] : s->dlink[best]; go_on && r != best; r = s->dlink[r]) {
        int option = s->node_option[r];
        if (s->n_groups && !fits(s, option)) continue;
        add_groups(s, option, 1);
        for (int q = r + 1; q != r;) {
            int x = s->top[q];
            if (x <= 0) q = s->ulink[q]; else { cover(s, x); q++; }
        }
        s->chosen[depth] = option;
        go_on = search(s, depth + 1);
        if (!go_on && s->status == NODE_LIMIT) s->path[depth] = r;
        for (int q = r - 1; q != r;) {
            int x = s->top[q];
            if (x <= 0) q = s->dlink[q]; else { uncover(s, x); q--; }
        }
        add_groups(s, option, -1);
    }
    uncover(s, best);
    return go_on;
}

/* Knuth's estimate of the size of the search tree (TAOCP 7.2.2, "estimating the running
 * time"): a random dive from the root takes, at each node, the item the search would
 * branch on and one of its d fitting options at random; 1 + d1 + d1·d2 + ... is an
 * unbiased estimate of the number of nodes, whose mean over many dives is what a route
 * compares with a table's cost before choosing (count.py). */
static uint64_t next_random(uint64_t *x) {  /* xorshift64* */
    *x ^= *x >> 12; *x ^= *x << 25; *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

static double dive(Search *s, uint64_t *random, int *items, int *nodes) {
    double estimate = 1, width = 1;
    int depth = 0;
    while (s->rlink[0] != 0) {
        int best = -1, fewest = 0x7fffffff, fitting = 0;
        for (int i = s->rlink[0]; i != 0; i = s->rlink[i])
            if (s->len[i] < fewest) { fewest = s->len[i]; best = i; if (fewest <= 1) break; }
        if (fewest == 0) break;
        for (int r = s->dlink[best]; r != best; r = s->dlink[r])
            fitting += !s->n_groups || fits(s, s->node_option[r]);
        if (fitting == 0) break;
        width *= fitting;
        estimate += width;
        int pick = (int)(next_random(random) % (uint64_t)fitting), r = s->dlink[best];
        for (;; r = s->dlink[r])
            if ((!s->n_groups || fits(s, s->node_option[r])) && pick-- == 0) break;
        cover(s, best);
        add_groups(s, s->node_option[r], 1);
        for (int q = r + 1; q != r;) {
            int x = s->top[q];
            if (x <= 0) q = s->ulink[q]; else { cover(s, x); q++; }
        }
        items[depth] = best;
        nodes[depth++] = r;
    }
    while (depth--) {
        int r = nodes[depth];
        for (int q = r - 1; q != r;) {
            int x = s->top[q];
            if (x <= 0) q = s->dlink[q]; else { uncover(s, x); q--; }
        }
        add_groups(s, s->node_option[r], -1);
        uncover(s, items[depth]);
    }
    return estimate;
}

/* estimate(dives, seed) -> the mean of ``dives`` dives' estimates of the nodes a full
 * search visits. */
static PyObject *Search_estimate(Search *s, PyObject *args) {
    int dives;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "iK", &dives, &seed)) return NULL;
    if (s->running) { PyErr_SetString(PyExc_RuntimeError, "this search is running"); return NULL; }
    int *items = malloc((s->n_items + 1) * sizeof(int)), *nodes = malloc((s->n_items + 1) * sizeof(int));
    if (!items || !nodes) { free(items); free(nodes); return PyErr_NoMemory(); }
    uint64_t random = seed * 0x9E3779B97F4A7C15ULL + 1;
    double sum = 0;
    memset(s->count_in_group, 0, sizeof(long long) * (s->n_groups + 1));
    Py_BEGIN_ALLOW_THREADS
    for (int k = 0; k < dives; k++) sum += dive(s, &random, items, nodes);
    Py_END_ALLOW_THREADS
    free(items);
    free(nodes);
    return PyFloat_FromDouble(dives > 0 ? sum / dives : 0.0);
}

static void Search_dealloc(Search *s) {
    free(s->llink); free(s->rlink); free(s->top); free(s->ulink); free(s->dlink);
    free(s->len); free(s->node_option); free(s->group_start); free(s->group_id);
    free(s->group_weight); free(s->count_in_group); free(s->lo); free(s->hi); free(s->chosen); free(s->path);
    held_free(&s->held);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

/* Search(n_items, options, groups[, primary])
 *   options: a list, per option, of (items, memberships): items are 1..n_items,
 *            memberships a list of (group, weight);
 *   groups:  a list of (lo, hi);
 *   primary: items 1..primary must be covered exactly once, the items after them are
 *            secondary, covered at most once (Knuth's dlx1); default n_items. */
static int Search_init(Search *s, PyObject *args, PyObject *kwds) {
    int n_items, primary = -1;
    PyObject *options, *groups;
    if (!PyArg_ParseTuple(args, "iOO|i", &n_items, &options, &groups, &primary)) return -1;
    if (primary < 0 || primary > n_items) primary = n_items;
    CoverInput in;
    if (cover_input_read(&in, options, groups, 0, 1, 1, n_items)) { cover_input_free(&in); return -1; }
    int n_options = in.n_options, total = in.item_start[n_options];
    s->n_items = n_items;
    s->n_options = n_options;
    s->n_groups = in.n_groups;
    s->n_nodes = n_items + 1 + total + n_options + 1;
    /* The groups and memberships are kept as read. */
    s->lo = in.lo; s->hi = in.hi; in.lo = in.hi = NULL;
    s->group_start = in.member_start; s->group_id = in.member_group; s->group_weight = in.member_weight;
    in.member_start = in.member_group = NULL; in.member_weight = NULL;
    s->llink = calloc(n_items + 1, sizeof(int));
    s->rlink = calloc(n_items + 1, sizeof(int));
    s->top = calloc(s->n_nodes, sizeof(int));
    s->ulink = calloc(s->n_nodes, sizeof(int));
    s->dlink = calloc(s->n_nodes, sizeof(int));
    s->len = calloc(n_items + 1, sizeof(int));
    s->node_option = calloc(s->n_nodes, sizeof(int));
    s->count_in_group = calloc(s->n_groups + 1, sizeof(long long));
    s->chosen = calloc(n_items + 1, sizeof(int));
    s->path = calloc(n_items + 1, sizeof(int));
    if (!held_init(&s->held, n_items) || !s->llink || !s->rlink || !s->top || !s->ulink || !s->dlink || !s->len ||
        !s->node_option || !s->count_in_group || !s->chosen || !s->path) {
        cover_input_free(&in);
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i <= n_items; i++) {
        if (i > primary) {             /* secondary: never chosen to branch on */
            s->llink[i] = s->rlink[i] = i;
        } else {
            s->llink[i] = i == 0 ? primary : i - 1;
            s->rlink[i] = i == primary ? 0 : i + 1;
        }
        s->ulink[i] = s->dlink[i] = i;
    }
    int x = n_items + 1, spacer = x;
    s->top[spacer] = 0;
    for (int o = 0; o < n_options; o++) {
        int first = x + 1;
        for (int j = in.item_start[o]; j < in.item_start[o + 1]; j++) {
            int item = in.items[j];
            x++;
            s->top[x] = item;
            s->node_option[x] = o;
            s->len[item]++;
            s->ulink[x] = s->ulink[item];
            s->dlink[x] = item;
            s->dlink[s->ulink[item]] = x;
            s->ulink[item] = x;
        }
        s->dlink[spacer] = x;            /* last node of this option */
        x++;
        spacer = x;
        s->top[spacer] = -o - 1;
        s->ulink[spacer] = first;        /* first node of the option before it */
    }
    s->dlink[spacer] = 0;
    cover_input_free(&in);
    return 0;
}

/* The search from the root (``resume`` 0) or from where its node limit stopped it. */
static PyObject *go(Search *s, PyObject *args, int resume) {
    PyObject *callback;
    unsigned long long limit;
    double time_limit;
    unsigned long long node_limit = 0;
    if (!PyArg_ParseTuple(args, "OKd|K", &callback, &limit, &time_limit, &node_limit)) return NULL;
    if (s->running) { PyErr_SetString(PyExc_RuntimeError, "this search is already running"); return NULL; }
    if (resume && !s->resumable) {
        PyErr_SetString(PyExc_RuntimeError, "only a search stopped by its node limit can be resumed");
        return NULL;
    }
    s->callback = callback;
    s->limit = limit;
    if (!resume) s->solutions = 0;
    s->resuming = resume;
    s->nodes = 0;
    s->node_limit = node_limit;
    s->status = DONE;
    s->deadline = time_limit > 0 ? now() + time_limit : 0;
    memset(s->count_in_group, 0, sizeof(long long) * (s->n_groups + 1));
    if (!held_begin(&s->held, callback, now())) return NULL;
    s->running = 1;
    Py_INCREF(callback);
    s->thread_state = PyEval_SaveThread();
    if (!s->cancel) search(s, 0);
    else s->status = CANCELLED;
    PyEval_RestoreThread(s->thread_state);
    if (!held_end(&s->held, callback, now(), s->status == FAILED)) s->status = FAILED;
    s->running = 0;
    s->resumable = s->status == NODE_LIMIT;
    Py_DECREF(callback);
    if (s->status == FAILED) return NULL;
    static const char *names[] = {"completed", "solution_limit", "interrupted", "time_limit", "node_limit"};
    return Py_BuildValue("(sK)", names[s->status], s->solutions);
}

/* run(callback, limit, time_limit[, node_limit]) -> (status, solutions)
 * callback: None (count only), a callable or a line request (_handover.h).
 * status: "completed", "solution_limit", "interrupted", "time_limit" or "node_limit". */
static PyObject *Search_run(Search *s, PyObject *args) { return go(s, args, 0); }

/* resume(callback, limit, time_limit[, node_limit]): run's answer, going on from where the
 * last run or resume stopped at its node limit; solutions counts them all. */
static PyObject *Search_resume(Search *s, PyObject *args) { return go(s, args, 1); }

static PyObject *Search_cancel(Search *s, PyObject *unused) {
    s->cancel = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Search_methods[] = {
    {"run", (PyCFunction)Search_run, METH_VARARGS,
     "run(callback, limit, time_limit[, node_limit]) -> (status, solutions); callback None counts only"},
    {"resume", (PyCFunction)Search_resume, METH_VARARGS,
     "resume(callback, limit, time_limit[, node_limit]) -> run's answer, from where the node limit stopped it"},
    {"estimate", (PyCFunction)Search_estimate, METH_VARARGS,
     "estimate(dives, seed) -> Knuth's estimate of the nodes a full search visits (the mean of random dives)"},
    {"cancel", (PyCFunction)Search_cancel, METH_NOARGS, "ask a running search to stop soon (any thread)"},
    {NULL}
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "polytile_exactcover._dlx.Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Search(n_items, options, groups[, primary]): an exact cover with counted groups and secondary items",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dlx", "Dancing links with counted groups", -1, NULL};

PyMODINIT_FUNC PyInit__dlx(void) {
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
