/* The boundary dynamic program of the fence search (see fence.py for the geometry).
 *
 * A fence is a cycle of pieces.  The curve around the pocket runs along each piece's
 * boundary (a "visit": one arc of it) and passes from piece to piece at a junction
 * state (vertex, direction).  A move adds one piece: from state (v, d) to
 * (v + dv, d'), gaining twice the shoelace area of its arc, 2a + cross(v, dv).
 *
 * dp(first, start) fills, for the cycles whose first piece is item ``first`` (the
 * lowest item of the cycle) and that start and end at state (0, start), the best doubled
 * area F[T][d][v] of a path that used items {first} + T and stands at (v, d).  A path
 * that can still come back never leaves the diamond |x| + |y| <= radius, so a plane of
 * F holds that diamond only (column by column), half the square around it.
 * Overlaps are ignored, so the best closed value is an upper bound on the pocket.
 * trace(...) walks the table backwards and lists the cycles of exactly a given value
 * whose pieces do not overlap, each with its largest pocket (a flood fill of the
 * outside under the rule's neighbours).  Both run with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_shared.h"

#define NEG INT16_MIN
enum { MOVE_INTS = 5, VISIT_INTS = 8 };

typedef struct {
    PyObject_HEAD
    int n_items, n_types, radius, width, cell_radius, cell_width, neighbours;
    long plane;                  /* positions in the diamond |x| + |y| <= radius */
    long *column;                /* column x of the diamond starts at column[x + radius] + radius - |x| */
    int *item_type, *item_prev, *item_next, *reach;
    int *moves, *move_start;     /* d_in, d_out, dx, dy, area2; grouped by type*4 + d_in  */
    int *visits, *visit_start;   /* d_in, d_out, dx, dy, area2, shape, ox, oy; by type*4 + d_out */
    int *cell_start, *cells;     /* shape -> its cells */
    int largest;                 /* the most cells of a shape */
    int16_t **tables;            /* per (first, start): F[T][d][position] */
    volatile int cancelled;
} Fence;


static void Fence_dealloc(Fence *self) {
    free(self->item_type); free(self->item_prev); free(self->item_next); free(self->reach);
    free(self->moves); free(self->move_start); free(self->visits); free(self->visit_start);
    free(self->cell_start); free(self->cells); free(self->column);
    if (self->tables) {
        for (int k = 0; k < self->n_items * 4; k++) free(self->tables[k]);
        free(self->tables);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Fence_init(Fence *self, PyObject *args, PyObject *kwds) {
    PyObject *b[10];
    if (!PyArg_ParseTuple(args, "iiiiiOOOOOOOOOO", &self->n_items, &self->n_types, &self->radius,
                          &self->cell_radius, &self->neighbours, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8], &b[9]))
        return -1;
    int **targets[10] = {&self->item_type, &self->item_prev, &self->item_next, &self->reach, &self->moves,
                         &self->move_start, &self->visits, &self->visit_start, &self->cell_start, &self->cells};
    Py_ssize_t counts[10];
    for (int k = 0; k < 10; k++)
        if (!(*targets[k] = copy_ints(b[k], &counts[k]))) return -1;
    for (Py_ssize_t s = 0; s + 1 < counts[8]; s++)
        if (self->cell_start[s + 1] - self->cell_start[s] > self->largest) self->largest = self->cell_start[s + 1] - self->cell_start[s];
    self->width = 2 * self->radius + 1;
    self->cell_width = 2 * self->cell_radius + 1;
    self->column = malloc(sizeof(long) * self->width);
    if (!self->column) { PyErr_NoMemory(); return -1; }
    self->plane = 0;
    for (int x = -self->radius; x <= self->radius; x++) {
        int span = self->radius - (x < 0 ? -x : x);
        self->column[x + self->radius] = self->plane + span;  /* where (x, 0) is */
        self->plane += 2 * span + 1;
    }
    self->tables = calloc(self->n_items * 4, sizeof(int16_t *));
    if (!self->tables) { PyErr_NoMemory(); return -1; }
    return 0;
}


/* Where (x, y) is in a plane; |x| + |y| <= radius. */
static inline long spot(const Fence *self, int x, int y) { return self->column[x + self->radius] + y; }

/* Sum of the reach of the items after ``first`` that are not in T (bit k = item first+1+k). */
static int reach_left(Fence *self, int first, long t) {
    int total = 0;
    for (int item = first + 1; item < self->n_items; item++)
        if (!(t >> (item - first - 1) & 1)) total += self->reach[self->item_type[item]];
    return total;
}

/* An item may join T when its previous copy is already in the cycle (copies in order). */
static inline int may_add(Fence *self, int first, long t, int item) {
    int prev = self->item_prev[item];
    if (prev < 0) return 1;
    if (prev == first) return 1;
    if (prev < first) return 0;
    return (t >> (prev - first - 1)) & 1;
}


/* Fill F[u] from every F[u - {item}]: the paths whose last piece is ``item``.  Only
 * F[u] is written, so the subsets of one size are filled by several threads at once. */
static void pull_into(Fence *self, int first, int16_t *table, long u) {
    int radius = self->radius;
    long plane = self->plane, layer = 4 * plane;
    int16_t *there = table + u * layer;
    for (int item = first + 1; item < self->n_items; item++) {
        long bit = 1L << (item - first - 1);
        long t = u ^ bit;
        if (!(u & bit) || !may_add(self, first, t, item)) continue;
        int16_t *here = table + t * layer;
        int left = reach_left(self, first, t);
        int limit = left < radius ? left : radius;
        int kind = self->item_type[item];
        int after = left - self->reach[kind];
        if (after > radius) after = radius;
        for (int d = 0; d < 4; d++) {
            int m0 = self->move_start[kind * 4 + d], m1 = self->move_start[kind * 4 + d + 1];
            for (int x = -limit; x <= limit; x++) {
                int span = limit - absolute(x);
                int16_t *column = here + d * plane + spot(self, x, 0);
                for (int y = -span; y <= span; y++) {
                    int value = column[y];
                    if (value == NEG) continue;
                    for (int m = m0; m < m1; m++) {
                        int *mv = self->moves + m * MOVE_INTS;
                        int nx = x + mv[2], ny = y + mv[3];
                        if (absolute(nx) + absolute(ny) > after) continue;
                        int gain = value + mv[4] + x * mv[3] - y * mv[2];
                        int16_t *slot = there + mv[1] * plane + spot(self, nx, ny);
                        if (*slot < gain) *slot = (int16_t)gain;
                    }
                }
            }
        }
    }
}

typedef struct {
    Fence *self;
    int first, size, threads, index, *stopped;
    int16_t *table;
    long subsets;
    double deadline;
} Pull;

/* One thread's share of the subsets of ``size`` items: every ``threads``-th of them. */
static void *pull_share(void *arg) {
    Pull *job = arg;
    long seen = 0, done = 0;
    for (long u = 1; u < job->subsets && !__atomic_load_n(job->stopped, __ATOMIC_RELAXED); u++) {
        if (__builtin_popcountl(u) != job->size || seen++ % job->threads != job->index) continue;
        pull_into(job->self, job->first, job->table, u);
        if ((++done & 15) == 0 && (job->self->cancelled || (job->deadline > 0 && now() > job->deadline)))
            __atomic_store_n(job->stopped, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static PyObject *Fence_dp(Fence *self, PyObject *args) {
    int first, start, threads = 1, stopped = 0;
    double seconds;
    if (!PyArg_ParseTuple(args, "iid|i", &first, &start, &seconds, &threads)) return NULL;
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    double deadline = seconds > 0 ? now() + seconds : 0;
    int rest = self->n_items - first - 1, radius = self->radius;
    long subsets = 1L << rest, plane = self->plane, layer = 4 * plane;
    int16_t *table = malloc(sizeof(int16_t) * subsets * layer);
    if (!table) return PyErr_NoMemory();
    int *best = malloc(sizeof(int) * subsets);
    if (!best) { free(table); return PyErr_NoMemory(); }
    Py_BEGIN_ALLOW_THREADS
    for (long k = 0; k < subsets * layer; k++) table[k] = NEG;
    int type = self->item_type[first];
    for (int m = self->move_start[type * 4 + start]; m < self->move_start[type * 4 + start + 1]; m++) {
        int *mv = self->moves + m * MOVE_INTS;
        if (absolute(mv[2]) + absolute(mv[3]) > radius) continue;
        long at = (long)mv[1] * plane + spot(self, mv[2], mv[3]);
        if (table[at] < mv[4]) table[at] = (int16_t)mv[4];
    }
    /* By size: the subsets of one size read only those one smaller. */
    Pull jobs[64];
    pthread_t workers[64];
    for (int size = 1; size <= rest && !__atomic_load_n(&stopped, __ATOMIC_RELAXED) && !self->cancelled; size++) {
        for (int k = 0; k < threads; k++) {
            jobs[k] = (Pull){self, first, size, threads, k, &stopped, table, subsets, deadline};
            if (k > 0 && pthread_create(&workers[k], NULL, pull_share, &jobs[k]) != 0) jobs[k].threads = -1;
        }
        pull_share(&jobs[0]);
        for (int k = 1; k < threads; k++) {
            if (jobs[k].threads > 0) {
                pthread_join(workers[k], NULL);
            } else {  /* no thread could be started: its share is filled here */
                jobs[k].threads = threads;
                pull_share(&jobs[k]);
            }
        }
    }
    long origin = (long)start * plane + spot(self, 0, 0);
    for (long t = 0; t < subsets; t++) best[t] = table[t * layer + origin];
    Py_END_ALLOW_THREADS
    if (self->cancelled || stopped) { free(table); free(best); Py_RETURN_NONE; }
    free(self->tables[first * 4 + start]);
    self->tables[first * 4 + start] = table;
    PyObject *out = PyList_New(subsets);
    for (long t = 0; t < subsets; t++) PyList_SET_ITEM(out, t, PyLong_FromLong(best[t] == NEG ? -1000000 : best[t]));
    free(best);
    return out;
}

typedef struct {
    Fence *self;
    int first, start, target, limit, found, stopped;
    int16_t *table;
    unsigned char *occupied;
    int depth, *path;            /* per depth: item, visit, x, y */
    int *out, out_len, out_cap;  /* found cycles: n, p, n * (item, visit, x, y), p * (x, y) of the pocket */
    int *grid, *stack, grid_cells;  /* the flood fill's cells: the fence's box and a frame */
    int *fence;                  /* the cells of the fence on the path, x, y pairs */
    double deadline;
    long nodes;
} Trace;

static int place(Trace *tr, int *visit, int x, int y, int mark) {
    Fence *self = tr->self;
    return place_visit(self->cell_start, self->cells, self->cell_radius, tr->occupied, visit, x, y, mark);
}

/* The largest pocket of the fence on the path (_shared.h).  Appends its cells to out
 * (room for them is made by the caller) and returns their number. */
static int pocket_of(Trace *tr) {
    Fence *self = tr->self;
    int count = 0;
    for (int k = 0; k < tr->depth; k++) {
        int *slot = tr->path + 4 * k, *visit = self->visits + slot[1] * VISIT_INTS, shape = visit[5];
        for (int c = self->cell_start[shape]; c < self->cell_start[shape + 1]; c++, count++) {
            tr->fence[2 * count] = self->cells[2 * c] + slot[2] + visit[6];
            tr->fence[2 * count + 1] = self->cells[2 * c + 1] + slot[3] + visit[7];
        }
    }
    int size = largest_pocket(tr->fence, count, self->neighbours, tr->grid, tr->stack, tr->out + tr->out_len);
    tr->out_len += 2 * size;
    return size;
}

static int record(Trace *tr) {
    int need = 2 + 4 * tr->depth + 2 * tr->grid_cells;
    if (tr->out_len + need > tr->out_cap) {
        int cap = 2 * tr->out_cap + need;
        int *grown = realloc(tr->out, sizeof(int) * cap);
        if (!grown) return 0;
        tr->out = grown;
        tr->out_cap = cap;
    }
    int head = tr->out_len;
    tr->out[head] = tr->depth;
    tr->out_len += 2;
    memcpy(tr->out + tr->out_len, tr->path, sizeof(int) * 4 * tr->depth);
    tr->out_len += 4 * tr->depth;
    tr->out[head + 1] = pocket_of(tr);
    tr->found++;
    return 1;
}

/* Backwards from state (x, y, d) after items {first} + T, with ``gained`` still to add. */
static void walk_back(Trace *tr, long t, int x, int y, int d, int gained) {
    Fence *self = tr->self;
    if (tr->stopped) return;
    if ((++tr->nodes & 4095) == 0 && (self->cancelled || (tr->deadline > 0 && now() > tr->deadline))) {
        tr->stopped = 1;
        return;
    }
    int radius = self->radius;
    long plane = self->plane, layer = 4 * plane;
    if (t == 0) {
        int kind = self->item_type[tr->first];
        for (int v = self->visit_start[kind * 4 + d]; v < self->visit_start[kind * 4 + d + 1]; v++) {
            int *visit = self->visits + v * VISIT_INTS;
            if (visit[0] != tr->start || visit[2] != x || visit[3] != y || visit[4] + gained != tr->target) continue;
            if (!place(tr, visit, 0, 0, 1)) continue;
            int *slot = tr->path + 4 * tr->depth;
            slot[0] = tr->first; slot[1] = v; slot[2] = 0; slot[3] = 0;
            tr->depth++;
            if (!record(tr) || (tr->limit > 0 && tr->found >= tr->limit)) tr->stopped = 1;
            tr->depth--;
            place(tr, visit, 0, 0, 0);
            if (tr->stopped) return;
        }
        return;
    }
    for (int item = tr->first + 1; item < self->n_items; item++) {
        long bit = 1L << (item - tr->first - 1);
        if (!(t & bit)) continue;
        int next = self->item_next[item];
        if (next >= 0 && (t >> (next - tr->first - 1) & 1)) continue;  /* the last copy leaves first */
        int16_t *before = tr->table + (t ^ bit) * layer;
        int kind = self->item_type[item];
        for (int v = self->visit_start[kind * 4 + d]; v < self->visit_start[kind * 4 + d + 1]; v++) {
            int *visit = self->visits + v * VISIT_INTS;
            int px = x - visit[2], py = y - visit[3];
            if (absolute(px) + absolute(py) > radius) continue;
            int value = before[visit[0] * plane + spot(self, px, py)];
            if (value == NEG) continue;
            int gain = visit[4] + px * visit[3] - py * visit[2];
            if (value + gain + gained < tr->target) continue;
            if (!place(tr, visit, px, py, 1)) continue;
            int *slot = tr->path + 4 * tr->depth;
            slot[0] = item; slot[1] = v; slot[2] = px; slot[3] = py;
            tr->depth++;
            walk_back(tr, t ^ bit, px, py, visit[0], gained + gain);
            tr->depth--;
            place(tr, visit, px, py, 0);
            if (tr->stopped) return;
        }
    }
}

static PyObject *Fence_trace(Fence *self, PyObject *args) {
    int first, start, target, limit;
    long t;
    double seconds;
    if (!PyArg_ParseTuple(args, "iiliid", &first, &start, &t, &target, &limit, &seconds)) return NULL;
    Trace tr = {0};
    tr.self = self; tr.first = first; tr.start = start; tr.target = target; tr.limit = limit;
    tr.table = self->tables[first * 4 + start];
    if (!tr.table) { PyErr_SetString(PyExc_RuntimeError, "trace before dp"); return NULL; }
    tr.deadline = seconds > 0 ? now() + seconds : 0;
    tr.occupied = calloc((size_t)self->cell_width * self->cell_width, 1);
    tr.path = malloc(sizeof(int) * 4 * (self->n_items + 1));
    tr.grid_cells = (self->cell_width + 2) * (self->cell_width + 2);
    tr.grid = malloc(sizeof(int) * tr.grid_cells);
    tr.stack = malloc(sizeof(int) * tr.grid_cells);
    tr.fence = malloc(sizeof(int) * 2 * (size_t)self->largest * (self->n_items + 1));
    if (!tr.occupied || !tr.path || !tr.grid || !tr.stack || !tr.fence) {
        free(tr.occupied); free(tr.path); free(tr.grid); free(tr.stack); free(tr.fence);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    walk_back(&tr, t, 0, 0, start, 0);
    Py_END_ALLOW_THREADS
    PyObject *cycles = PyList_New(0);
    for (int at = 0; at < tr.out_len;) {
        int n = tr.out[at], p = tr.out[at + 1];
        at += 2;
        PyObject *cycle = PyTuple_New(n);
        for (int k = 0; k < n; k++, at += 4)
            PyTuple_SET_ITEM(cycle, k, Py_BuildValue("(iiii)", tr.out[at], tr.out[at + 1], tr.out[at + 2], tr.out[at + 3]));
        PyObject *pocket = PyBytes_FromStringAndSize((const char *)(tr.out + at), sizeof(int) * 2 * (Py_ssize_t)p);
        at += 2 * p;
        PyObject *item = Py_BuildValue("(NN)", cycle, pocket);
        PyList_Append(cycles, item);
        Py_DECREF(item);
    }
    /* 1: walked to the end; 2: stopped at the limit of cycles; 0: out of time or cancelled */
    int status = !tr.stopped ? 1 : (tr.limit > 0 && tr.found >= tr.limit ? 2 : 0);
    free(tr.occupied); free(tr.path); free(tr.out); free(tr.grid); free(tr.stack); free(tr.fence);
    return Py_BuildValue("(Ni)", cycles, status);
}

static PyObject *Fence_cancel(Fence *self, PyObject *unused) {
    self->cancelled = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Fence_methods[] = {
    {"dp", (PyCFunction)Fence_dp, METH_VARARGS,
     "dp(first, start, seconds) -> best doubled area closing after each T (None if out of time or cancelled)"},
    {"trace", (PyCFunction)Fence_trace, METH_VARARGS,
     "trace(first, start, T, target, limit, seconds) -> ([(cycle, pocket cells as int32 x, y bytes)], status)"},
    {"cancel", (PyCFunction)Fence_cancel, METH_NOARGS, "ask a running dp or trace to stop soon (any thread)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FenceType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "polytile_enclosure._fence.Fence",
    .tp_basicsize = sizeof(Fence),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Fence_init,
    .tp_dealloc = (destructor)Fence_dealloc,
    .tp_methods = Fence_methods,
};

/* The positions of a diamond of ``radius``: column x starts at col[x + radius] - (radius - |x|). */
static long diamond_columns(int radius, long *col) {
    long size = 0;
    for (int x = -radius; x <= radius; x++) {
        int span = radius - absolute(x);
        col[x + radius] = size + span;
        size += 2 * span + 1;
    }
    return size;
}

/* relaxed(moves, move_start, penalties, limits, groups, capacities, start, seconds, threads, floor, edges_most, coarse):
 * the dynamic program of bound.py.  Like dp() but over (number of pieces placed, tally,
 * direction, position) instead of (set of pieces, direction, position): the tally counts
 * the pieces placed of each group of types (groups[type]), at most capacities[group];
 * a type may be placed again, at the price 2 * penalties[type] (doubles) on top of its
 * doubled gain.  ``moves`` are int32 rows (type, d_in, dx, dy, area2) grouped by
 * d_out (move_start[d] .. move_start[d + 1]); a path of c pieces stands in the diamond
 * |x| + |y| <= limits[c] (limits[0] = 0: it starts at the origin).
 *
 * Pruning by ``floor``: two passes without the sets, forward (the best path to each
 * state) and backward (the best way from it back to the start), bound every cycle
 * through a state; a state whose bound, or whose value with the sets plus the backward
 * bound, is below ``floor`` is dropped, and so is a move into a live state that cannot
 * reach ``floor`` even between those bounds (edge_pass: the tallied pass runs over each
 * state's edges only).  With ``coarse`` (int32 per group: the group of a coarser split
 * that holds it; empty for none) the coarser tallies run first, forward and backward
 * (coarse_alive), and the tallied pass skips every state whose coarse tally cannot reach
 * ``floor`` there.  So the answer is exact whenever it is above
 * ``floor`` and otherwise only known to be at most ``floor``: the caller takes
 * max(answer, floor).  Returns (best doubled value or -1e300, pieces, uses per type, live
 * states) of the best cycle from (origin, start) back to it, or None when out of time. */
#define NONE_VALUE (-1e300)
/* The tallies of a split: one digit per group, from 0 to its capacity (mixed radix); the
 * tallies of layer c are those whose digits add up to c. */
typedef struct {
    int *codes, *start;           /* the tallies of each layer, by layer (start: n + 2 entries) */
    int *index;                   /* by code: its number within its layer (-1 past layer n) */
    int *step, *room;             /* per move: its group's place value in a code, and its capacity + 1 */
    int *place;                   /* per group: its place value in a code */
    long n_codes;
} Tallies;

static void tallies_free(Tallies *t) {
    free(t->codes); free(t->start); free(t->index); free(t->step); free(t->room); free(t->place);
}

/* The tallies of groups with these capacities, for the moves whose groups are
 * move_group[m]; 0 when out of memory. */
static int make_tallies(Tallies *t, const int *capacity, Py_ssize_t n_groups, int n, const int *move_group, int n_rows) {
    long n_codes = 1;
    int *place = t->place = malloc(sizeof(int) * (n_groups + 1));
    for (Py_ssize_t g = 0; place && g < n_groups; g++) {
        place[g] = (int)n_codes;
        n_codes *= capacity[g] + 1;
    }
    t->n_codes = n_codes;
    t->codes = malloc(sizeof(int) * n_codes);
    t->index = malloc(sizeof(int) * n_codes);
    t->start = calloc(n + 2, sizeof(int));
    t->step = malloc(sizeof(int) * (n_rows + 1));
    t->room = malloc(sizeof(int) * (n_rows + 1));
    int *fill = calloc(n + 1, sizeof(int));
    int made = place && t->codes && t->index && t->start && t->step && t->room && fill;
    if (made) {
        for (long code = 0; code < n_codes; code++) {
            long rest = code;
            int sum = 0;
            for (Py_ssize_t g = 0; g < n_groups; g++) { sum += (int)(rest % (capacity[g] + 1)); rest /= capacity[g] + 1; }
            t->index[code] = sum;  /* for now: its layer */
            if (sum <= n) t->start[sum + 1]++;
        }
        for (int c = 0; c <= n; c++) t->start[c + 1] += t->start[c];
        for (long code = 0; code < n_codes; code++) {
            int layer = t->index[code];
            if (layer > n) { t->index[code] = -1; continue; }
            t->codes[t->start[layer] + fill[layer]] = (int)code;
            t->index[code] = fill[layer]++;
        }
        for (int m = 0; m < n_rows; m++) {
            t->step[m] = place[move_group[m]];
            t->room[m] = capacity[move_group[m]] + 1;
        }
    }
    free(fill);
    return made;
}

typedef struct {
    int n, widest, threads, start;
    const int *moves, *move_start, *move_out, *in_order, *in_start, *group, *limits;
    Tallies fine, coarse;         /* the split's tallies, and a coarser split's (or none: coarse.codes NULL) */
    Tallies *t;                   /* the tallies the set passes run over */
    unsigned char **alive;        /* per layer, or NULL: [coarse tally][state] may reach the floor */
    int *coarse_of;               /* by code of the split: the number of its coarse tally within its layer */
    const double *penalty;
    long *cols, *planes;          /* per layer: where (x, 0) is in its diamond; the diamond's size */
    double **ahead, **back;       /* per layer: forward and backward values without the sets, [d][pos] */
    int **index;                  /* per layer: [d][pos] -> live state number, or -1 */
    int **live;                   /* per layer: the live states' (d, x, y) */
    long *counts;                 /* per layer: how many are live */
    long *edge_start;             /* the layer being filled: live state -> its first edge (live count + 1) */
    int *edge_move, *edge_from;   /* per edge: its move, and the live state of the layer before it comes from */
    double *edge_gain;            /* per edge: the doubled gain of its move there, priced */
    long edges_most;              /* the most edges a layer may list */
    double floor;
    double deadline;
    int timed_out;
} Relax;

static inline long relax_at(const Relax *r, int c, int x, int y) {
    return r->cols[(long)c * (2 * r->widest + 1) + x + r->limits[c]] + y;
}

/* The doubled gain of move ``mv`` from (fx, fy), its type's price paid. */
static inline double priced_gain(const Relax *r, const int *mv, int fx, int fy) {
    return mv[4] - 2 * r->penalty[mv[0]] + (double)fx * mv[3] - (double)fy * mv[2];
}

typedef struct {
    Relax *r;
    int c, index, threads, second;  /* plain_pass: backward; edge_pass: fill the edges counted */
    const double *before;  /* the set pass: layer c - 1's values, [set][state] */
    double *here;
    int16_t *came;
} Pass;

/* Forward (layer c from c - 1) or backward (layer c from c + 1) without the sets: the
 * positions of layer c are shared between threads by x. */
static void *plain_pass(void *arg) {
    Pass *job = arg;
    Relax *r = job->r;
    int c = job->c, limit = r->limits[c];
    for (int x = -limit + job->index; x <= limit; x += job->threads) {
        int span = limit - absolute(x);
        for (int y = -span; y <= span; y++)
            for (int d = 0; d < 4; d++) {
                double top = NONE_VALUE;
                if (!job->second) {
                    int other = r->limits[c - 1];
                    for (int m = r->move_start[d]; m < r->move_start[d + 1]; m++) {
                        const int *mv = r->moves + 5 * m;
                        int px = x - mv[2], py = y - mv[3];
                        if (absolute(px) + absolute(py) > other) continue;
                        double v = r->ahead[c - 1][mv[1] * r->planes[c - 1] + relax_at(r, c - 1, px, py)];
                        if (v <= NONE_VALUE) continue;
                        double gain = v + priced_gain(r, mv, px, py);
                        if (gain > top) top = gain;
                    }
                    r->ahead[c][d * r->planes[c] + relax_at(r, c, x, y)] = top;
                } else {
                    if (x == 0 && y == 0 && d == r->start) top = 0.0;  /* close here */
                    if (c < r->n) {
                        int other = r->limits[c + 1];
                        for (int k = r->in_start[d]; k < r->in_start[d + 1]; k++) {
                            const int *mv = r->moves + 5 * r->in_order[k];
                            int nx = x + mv[2], ny = y + mv[3];
                            if (absolute(nx) + absolute(ny) > other) continue;
                            double v = r->back[c + 1][r->move_out[r->in_order[k]] * r->planes[c + 1] + relax_at(r, c + 1, nx, ny)];
                            if (v <= NONE_VALUE) continue;
                            double gain = v + priced_gain(r, mv, x, y);
                            if (gain > top) top = gain;
                        }
                    }
                    r->back[c][d * r->planes[c] + relax_at(r, c, x, y)] = top;
                }
            }
    }
    return NULL;
}

/* The edges into layer c's live states, for the tallied pass with a floor: the moves
 * from a live state of layer c - 1 such that the best path to their start (without
 * tallies), their gain and the best way back from their end reach the floor.  Counted
 * first (``fill`` 0: edge_start[s + 1] = the edges of state s), then filled at
 * edge_start[s]. */
static void *edge_pass(void *arg) {
    Pass *job = arg;
    Relax *r = job->r;
    int c = job->c, fill = job->second;
    long count = r->counts[c];
    for (long s = job->index; s < count; s += job->threads) {
        const int *state = r->live[c] + 3 * s;
        int d = state[0], x = state[1], y = state[2];
        double home = r->back[c][d * r->planes[c] + relax_at(r, c, x, y)];
        long e = fill ? r->edge_start[s] : 0;
        for (int m = r->move_start[d]; m < r->move_start[d + 1]; m++) {
            const int *mv = r->moves + 5 * m;
            int px = x - mv[2], py = y - mv[3];
            if (absolute(px) + absolute(py) > r->limits[c - 1]) continue;
            long spot_before = mv[1] * r->planes[c - 1] + relax_at(r, c - 1, px, py);
            int at = r->index[c - 1][spot_before];
            if (at < 0) continue;
            double gain = priced_gain(r, mv, px, py);
            if (r->ahead[c - 1][spot_before] + gain + home < r->floor) continue;
            if (fill) { r->edge_move[e] = m; r->edge_from[e] = at; r->edge_gain[e] = gain; }
            e++;
        }
        if (!fill) r->edge_start[s + 1] = e;
    }
    return NULL;
}

/* Layer c with the tallies, over its live states: work items are (tally, stretch of
 * states).  A state's moves are its edges when they were listed (build_edges), else every
 * move that comes from a live state of the layer before. */
enum { STRETCHES = 16 };
/* The values of layer c with these tallies: one per (tally, live state). */
static inline long layer_size(const Relax *r, const Tallies *t, int c) {
    return r->counts[c] * (long)(t->start[c + 1] - t->start[c]);
}

static void *set_pass(void *arg) {
    Pass *job = arg;
    Relax *r = job->r;
    const Tallies *t = r->t;
    int c = job->c, by_edges = r->edge_move != NULL;
    long count = r->counts[c], before_count = r->counts[c - 1];
    int first = t->start[c], tallies = t->start[c + 1] - first;
    for (long item = job->index; item < (long)tallies * STRETCHES; item += job->threads) {
        int which = (int)(item / STRETCHES), stretch = (int)(item % STRETCHES), tally = t->codes[first + which];
        long from = count * stretch / STRETCHES, to = count * (stretch + 1) / STRETCHES;
        const unsigned char *alive = r->alive ? r->alive[c] + (long)r->coarse_of[tally] * count : NULL;
        for (long s = from; s < to; s++) {
            const int *state = r->live[c] + 3 * s;
            int d = state[0], x = state[1], y = state[2];
            double top = NONE_VALUE;
            int arg_best = -1;
            long e0 = by_edges ? r->edge_start[s] : r->move_start[d], e1 = by_edges ? r->edge_start[s + 1] : r->move_start[d + 1];
            if (alive && !alive[s]) e1 = e0;  /* no cycle of the coarse tallies through it reaches the floor */
            for (long e = e0; e < e1; e++) {
                int m = by_edges ? r->edge_move[e] : (int)e, at;
                if ((tally / t->step[m]) % t->room[m] == 0) continue;  /* its group is used up */
                double gain;
                if (by_edges) {
                    at = r->edge_from[e];
                    gain = r->edge_gain[e];
                } else {
                    const int *mv = r->moves + 5 * m;
                    int px = x - mv[2], py = y - mv[3];
                    if (absolute(px) + absolute(py) > r->limits[c - 1]) continue;
                    at = r->index[c - 1][mv[1] * r->planes[c - 1] + relax_at(r, c - 1, px, py)];
                    if (at < 0) continue;
                    gain = priced_gain(r, mv, px, py);
                }
                double v = job->before[(long)t->index[tally - t->step[m]] * before_count + at];
                if (v <= NONE_VALUE) continue;
                if (v + gain > top) { top = v + gain; arg_best = m; }
            }
            if (r->floor > NONE_VALUE && top > NONE_VALUE && top + r->back[c][d * r->planes[c] + relax_at(r, c, x, y)] < r->floor) top = NONE_VALUE;
            job->here[(long)which * count + s] = top;
            if (job->came) job->came[(long)which * count + s] = (int16_t)(top > NONE_VALUE ? arg_best : -1);
        }
    }
    return NULL;
}

/* Layer c's backward values with the tallies (job->here, [tally][state]: the best way from
 * the state back to the start that keeps within the groups' capacities) from layer
 * c + 1's (job->before), over the edges into layer c + 1 (build_edges(c + 1)).  Each
 * thread takes whole tallies of layer c, so that it alone writes their rows. */
static void *tally_back_pass(void *arg) {
    Pass *job = arg;
    Relax *r = job->r;
    const Tallies *t = r->t;
    int c = job->c, first = t->start[c], tallies = t->start[c + 1] - first;
    long count = r->counts[c], after_count = c < r->n ? r->counts[c + 1] : 0;
    int origin = r->index[c][r->start * r->planes[c] + relax_at(r, c, 0, 0)];
    for (int which = job->index; which < tallies; which += job->threads) {
        int tally = t->codes[first + which];
        double *row = job->here + (long)which * count;
        for (long s = 0; s < count; s++) row[s] = NONE_VALUE;
        if (origin >= 0) row[origin] = 0.0;  /* close here */
        for (long s = 0; s < after_count; s++)
            for (long e = r->edge_start[s]; e < r->edge_start[s + 1]; e++) {
                int m = r->edge_move[e];
                if ((tally / t->step[m]) % t->room[m] == t->room[m] - 1) continue;  /* its group is full */
                double v = job->before[(long)t->index[tally + t->step[m]] * after_count + s];
                if (v <= NONE_VALUE) continue;
                v += r->edge_gain[e];
                if (v > row[r->edge_from[e]]) row[r->edge_from[e]] = v;
            }
    }
    return NULL;
}

static void run_threads(Pass *jobs, int threads, void *(*work)(void *)) {
    pthread_t helpers[64];
    int started[64] = {0};
    for (int k = 1; k < threads; k++) started[k] = pthread_create(&helpers[k], NULL, work, &jobs[k]) == 0;
    work(&jobs[0]);
    for (int k = 1; k < threads; k++) {
        if (started[k]) pthread_join(helpers[k], NULL); else work(&jobs[k]);
    }
}

/* The edges into layer c (counted, then filled), in place of the layer before's; none
 * (edge_move NULL: the layer runs over the moves) when there are more than
 * r->edges_most of them (16 bytes an edge); 0 when out of memory. */
static int build_edges(Relax *r, int c, Pass *jobs) {
    free(r->edge_start); free(r->edge_move); free(r->edge_from); free(r->edge_gain);
    r->edge_move = r->edge_from = NULL;
    r->edge_gain = NULL;
    if (!(r->edge_start = malloc(sizeof(long) * (r->counts[c] + 1)))) return 0;
    r->edge_start[0] = 0;
    for (int fill = 0; fill < 2; fill++) {
        for (int k = 0; k < r->threads; k++) jobs[k] = (Pass){r, c, k, r->threads, fill, NULL, NULL, NULL};
        run_threads(jobs, r->threads, edge_pass);
        if (fill) break;
        for (long k = 0; k < r->counts[c]; k++) r->edge_start[k + 1] += r->edge_start[k];
        long edges = r->edge_start[r->counts[c]] > 0 ? r->edge_start[r->counts[c]] : 1;
        if (edges > r->edges_most) return 1;
        r->edge_move = malloc(sizeof(int) * edges);
        r->edge_from = malloc(sizeof(int) * edges);
        r->edge_gain = malloc(sizeof(double) * edges);
        if (!r->edge_move || !r->edge_from || !r->edge_gain) return 0;
    }
    return 1;
}

static void free_layers(void **layers, int n) {
    if (!layers) return;
    for (int c = 0; c <= n; c++) free(layers[c]);
    free(layers);
}

/* r->alive from the coarse tallies: forward (every layer kept) and backward (two at a
 * time) with the tallies of ``coarse``, a state of layer c with a coarse tally alive when
 * a cycle through it can still reach the floor.  A finer tally's path is a coarse one's,
 * so the finer pass may skip every state whose coarse tally is not alive there.  Returns
 * 1 when done, 0 when it could not be (out of memory, or a layer too wide for its edges:
 * then the finer pass runs unpruned), -1 when out of time. */
static int coarse_alive(Relax *r, Tallies *coarse, Pass *jobs, double deadline) {
    int n = r->n, result = 0;
    Tallies *fine = r->t;
    r->t = coarse;
    double **ahead = calloc(n + 1, sizeof(double *)), *back[2] = {NULL, NULL};
    long widest = 1;
    for (int c = 0; c <= n; c++) {
        long size = layer_size(r, coarse, c);
        if (size > widest) widest = size;
    }
    unsigned char **alive = calloc(n + 1, sizeof(unsigned char *));
    back[0] = malloc(sizeof(double) * widest);
    back[1] = malloc(sizeof(double) * widest);
    if (!ahead || !alive || !back[0] || !back[1]) goto done;
    for (int c = 0; c <= n; c++) {
        long size = layer_size(r, coarse, c);
        if (!(ahead[c] = malloc(sizeof(double) * (size > 0 ? size : 1)))) goto done;
        if (!(alive[c] = malloc(size > 0 ? size : 1))) goto done;
    }
    for (long k = 0; k < r->counts[0]; k++) ahead[0][k] = NONE_VALUE;
    if (r->counts[0] > 0) ahead[0][r->index[0][r->start]] = 0.0;
    for (int c = 1; c <= n; c++) {
        if (deadline > 0 && now() > deadline) { result = -1; goto done; }
        if (!build_edges(r, c, jobs)) goto done;
        for (int k = 0; k < r->threads; k++) jobs[k] = (Pass){r, c, k, r->threads, 0, ahead[c - 1], ahead[c], NULL};
        run_threads(jobs, r->threads, set_pass);
    }
    for (int c = n; c >= 0; c--) {
        if (deadline > 0 && now() > deadline) { result = -1; goto done; }
        double *here = back[c & 1];
        if (c < n && (!build_edges(r, c + 1, jobs) || !r->edge_move)) goto done;
        for (int k = 0; k < r->threads; k++) jobs[k] = (Pass){r, c, k, r->threads, 0, back[(c + 1) & 1], here, NULL};
        run_threads(jobs, r->threads, tally_back_pass);
        long size = layer_size(r, coarse, c);
        for (long k = 0; k < size; k++)
            alive[c][k] = ahead[c][k] > NONE_VALUE && here[k] > NONE_VALUE && ahead[c][k] + here[k] >= r->floor;
        free(ahead[c]);
        ahead[c] = NULL;
    }
    result = 1;
done:
    free_layers((void **)ahead, n);
    free(back[0]); free(back[1]);
    if (result == 1) r->alive = alive;
    else free_layers((void **)alive, n);
    r->t = fine;
    return result;
}

static void relax_free(Relax *r, double *layers[2], int16_t **came) {
    for (int c = 0; c <= r->n; c++) {
        if (r->ahead) free(r->ahead[c]);
        if (r->back) free(r->back[c]);
        if (r->index) free(r->index[c]);
        if (r->live) free(r->live[c]);
        if (came) free(came[c]);
    }
    free(r->ahead); free(r->back); free(r->index); free(r->live); free(r->counts); free(came);
    free(r->edge_start); free(r->edge_move); free(r->edge_from); free(r->edge_gain);
    free(r->cols); free(r->planes); free(layers[0]); free(layers[1]);
    free((void *)r->moves); free((void *)r->move_start); free((void *)r->limits); free((void *)r->group);
    free_layers((void **)r->alive, r->n);
    tallies_free(&r->fine); tallies_free(&r->coarse); free(r->coarse_of);
    free((void *)r->in_order); free((void *)r->in_start); free((void *)r->move_out);
}

static PyObject *relaxed(PyObject *module, PyObject *args) {
    PyObject *moves_bytes, *start_bytes, *penalty_bytes, *limit_bytes, *group_bytes, *capacity_bytes, *coarse_bytes;
    Relax r = {0};
    double *layers[2] = {NULL, NULL};
    int16_t **came = NULL;
    double seconds;
    if (!PyArg_ParseTuple(args, "OOOOOOididlO", &moves_bytes, &start_bytes, &penalty_bytes, &limit_bytes, &group_bytes,
                          &capacity_bytes, &r.start, &seconds, &r.threads, &r.floor, &r.edges_most, &coarse_bytes))
        return NULL;
    if (r.threads < 1) r.threads = 1;
    if (r.threads > 64) r.threads = 64;
    Py_ssize_t n_limits, n_moves, n_types, n_groups;
    char *penalty_data;
    Py_ssize_t penalty_size;
    int *moves = copy_ints(moves_bytes, &n_moves), *move_start = copy_ints(start_bytes, NULL);
    int *limits = copy_ints(limit_bytes, &n_limits), *group = copy_ints(group_bytes, &n_types);
    int *capacity = copy_ints(capacity_bytes, &n_groups);
    r.moves = moves; r.move_start = move_start; r.limits = limits; r.group = group;
    if (!moves || !move_start || !limits || !group || !capacity
        || PyBytes_AsStringAndSize(penalty_bytes, &penalty_data, &penalty_size) < 0) {
        relax_free(&r, layers, came);
        free(capacity);
        return NULL;
    }
    if (n_moves / 5 > INT16_MAX) {
        relax_free(&r, layers, came);
        PyErr_SetString(PyExc_ValueError, "too many moves");
        return NULL;
    }
    r.penalty = (const double *)penalty_data;
    r.n = (int)n_limits - 1;
    int n = r.n, n_rows = (int)(n_moves / 5);
    for (int c = 0; c <= n; c++)
        if (limits[c] > r.widest) r.widest = limits[c];
    /* the tallies: one digit per group, from 0 to its capacity; those of layer c add up to c */
    Py_ssize_t n_coarse_of = 0;
    int *coarse_group = PyBytes_GET_SIZE(coarse_bytes) > 0 ? copy_ints(coarse_bytes, &n_coarse_of) : NULL;
    int *move_group = malloc(sizeof(int) * (n_rows + 1));
    int made = move_group != NULL;
    if (made) {
        for (int m = 0; m < n_rows; m++) move_group[m] = group[moves[5 * m]];
        made = make_tallies(&r.fine, capacity, n_groups, n, move_group, n_rows);
    }
    r.t = &r.fine;
    if (made && coarse_group && n_coarse_of == n_groups) {
        /* a coarser split: each group of the split is in one of its groups */
        int n_coarse = 0;
        for (Py_ssize_t g = 0; g < n_groups; g++)
            if (coarse_group[g] + 1 > n_coarse) n_coarse = coarse_group[g] + 1;
        int *coarse_capacity = calloc(n_coarse, sizeof(int));
        r.coarse_of = malloc(sizeof(int) * r.fine.n_codes);
        made = coarse_capacity && r.coarse_of;
        if (made) {
            for (Py_ssize_t g = 0; g < n_groups; g++) coarse_capacity[coarse_group[g]] += capacity[g];
            for (int m = 0; m < n_rows; m++) move_group[m] = coarse_group[group[moves[5 * m]]];
            made = make_tallies(&r.coarse, coarse_capacity, n_coarse, n, move_group, n_rows);
        }
        for (long code = 0; made && code < r.fine.n_codes; code++) {
            long rest = code, coarse_code = 0;
            for (Py_ssize_t g = 0; g < n_groups; g++) {
                coarse_code += (rest % (capacity[g] + 1)) * r.coarse.place[coarse_group[g]];
                rest /= capacity[g] + 1;
            }
            r.coarse_of[code] = r.coarse.index[coarse_code];
        }
        free(coarse_capacity);
    }
    free(coarse_group);
    free(move_group);
    free(capacity);
    int *in_order = malloc(sizeof(int) * (n_rows + 1)), *in_start = calloc(5, sizeof(int));
    int *move_out = malloc(sizeof(int) * (n_rows + 1));
    r.in_order = in_order; r.in_start = in_start; r.move_out = move_out;
    r.cols = malloc(sizeof(long) * (size_t)(n + 1) * (2 * r.widest + 1));
    r.planes = malloc(sizeof(long) * (n + 1));
    r.ahead = calloc(n + 1, sizeof(double *)); r.back = calloc(n + 1, sizeof(double *));
    r.index = calloc(n + 1, sizeof(int *)); r.live = calloc(n + 1, sizeof(int *));
    r.counts = calloc(n + 1, sizeof(long));
    came = calloc(n + 1, sizeof(int16_t *));
    int *uses = calloc(n_types > 0 ? n_types : 1, sizeof(int));
    int failed = !made || !in_order || !in_start || !move_out || !r.cols || !r.planes || !r.ahead || !r.back || !r.index || !r.live || !r.counts
                 || !came || !uses;
    for (int c = 0; c <= n && !failed; c++) {
        r.planes[c] = diamond_columns(limits[c], r.cols + (long)c * (2 * r.widest + 1));
        r.ahead[c] = malloc(sizeof(double) * 4 * r.planes[c]);
        r.back[c] = malloc(sizeof(double) * 4 * r.planes[c]);
        r.index[c] = malloc(sizeof(int) * 4 * r.planes[c]);
        if (!r.ahead[c] || !r.back[c] || !r.index[c]) failed = 1;
    }
    if (failed) {
        relax_free(&r, layers, came);
        free(uses);
        return PyErr_NoMemory();
    }
    /* the moves by d_in, for the backward pass */
    for (int d = 0; d < 4; d++)
        for (int m = move_start[d]; m < move_start[d + 1]; m++) move_out[m] = d;
    for (int m = 0; m < n_rows; m++) in_start[moves[5 * m + 1] + 1]++;
    for (int d = 0; d < 4; d++) in_start[d + 1] += in_start[d];
    {
        int fill[4] = {in_start[0], in_start[1], in_start[2], in_start[3]};
        for (int m = 0; m < n_rows; m++) in_order[fill[moves[5 * m + 1]]++] = m;
    }
    double deadline = seconds > 0 ? now() + seconds : 0, best = NONE_VALUE;
    int best_count = 0, best_set = 0, timed_out = 0;
    long live_states = 0;
    Py_BEGIN_ALLOW_THREADS
    Pass jobs[64];
    for (long k = 0; k < 4 * r.planes[0]; k++) r.ahead[0][k] = NONE_VALUE;
    r.ahead[0][r.start] = 0.0;
    int pruning = r.floor > NONE_VALUE;  /* without a floor every state is live: no passes without the tallies */
    for (int c = 1; c <= n && !timed_out && pruning; c++) {
        for (int k = 0; k < r.threads; k++) jobs[k] = (Pass){&r, c, k, r.threads, 0, NULL, NULL, NULL};
        run_threads(jobs, r.threads, plain_pass);
        if (deadline > 0 && now() > deadline) timed_out = 1;
    }
    for (int c = n; c >= 0 && !timed_out && pruning; c--) {
        for (int k = 0; k < r.threads; k++) jobs[k] = (Pass){&r, c, k, r.threads, 1, NULL, NULL, NULL};
        run_threads(jobs, r.threads, plain_pass);
        if (deadline > 0 && now() > deadline) timed_out = 1;
    }
    /* the live states: a cycle through them may reach ``floor`` */
    for (int c = 0; c <= n && !timed_out; c++) {
        long count = 0;
        for (long k = 0; k < 4 * r.planes[c]; k++) {
            int alive = !pruning || (r.ahead[c][k] > NONE_VALUE && r.back[c][k] > NONE_VALUE && r.ahead[c][k] + r.back[c][k] >= r.floor);
            r.index[c][k] = alive ? (int)count++ : -1;
        }
        r.counts[c] = count;
        live_states += count;
        r.live[c] = malloc(sizeof(int) * 3 * (count > 0 ? count : 1));
        if (!r.live[c]) { timed_out = -1; break; }
        for (int d = 0; d < 4; d++) {
            int limit = limits[c];
            for (int x = -limit; x <= limit; x++) {
                int span = limit - absolute(x);
                for (int y = -span; y <= span; y++) {
                    int at = r.index[c][d * r.planes[c] + relax_at(&r, c, x, y)];
                    if (at < 0) continue;
                    r.live[c][3 * at] = d; r.live[c][3 * at + 1] = x; r.live[c][3 * at + 2] = y;
                }
            }
        }
    }
    /* a coarser split's tallies, forward and backward: the states where their cycles fall
     * short of the floor are skipped by the finer tallies */
    if (!timed_out && pruning && r.coarse.codes && coarse_alive(&r, &r.coarse, jobs, deadline) < 0) timed_out = 1;
    /* the tallies, over the live states, two layers of values at a time */
    long widest_count = 0;
    for (int c = 0; c <= n; c++) {
        long size = layer_size(&r, &r.fine, c);
        if (size > widest_count) widest_count = size;
    }
    if (!timed_out && widest_count > 0) {
        layers[0] = malloc(sizeof(double) * widest_count);
        layers[1] = malloc(sizeof(double) * widest_count);
        if (!layers[0] || !layers[1]) timed_out = -1;
    }
    if (!timed_out && widest_count > 0 && r.counts[0] > 0) {
        for (long k = 0; k < r.counts[0]; k++) layers[0][k] = NONE_VALUE;
        layers[0][r.index[0][r.start]] = 0.0;  /* the empty tally, at the origin, heading ``start`` */
        for (int c = 1; c <= n && !timed_out; c++) {
            if (deadline > 0 && now() > deadline) { timed_out = 1; break; }
            long size = layer_size(&r, &r.fine, c);
            if (!(came[c] = malloc(sizeof(int16_t) * (size > 0 ? size : 1)))) { timed_out = -1; break; }
            if (pruning && !build_edges(&r, c, jobs)) { timed_out = -1; break; }
            for (int k = 0; k < r.threads; k++) jobs[k] = (Pass){&r, c, k, r.threads, 0, layers[(c - 1) & 1], layers[c & 1], came[c]};
            run_threads(jobs, r.threads, set_pass);
            int origin = r.index[c][r.start * r.planes[c] + relax_at(&r, c, 0, 0)];
            if (origin < 0) continue;
            for (int which = 0; which < r.fine.start[c + 1] - r.fine.start[c]; which++) {
                double value = layers[c & 1][(long)which * r.counts[c] + origin];
                if (value > best) { best = value; best_count = c; best_set = which; }
            }
        }
    }
    if (!timed_out && best > NONE_VALUE) {
        int x = 0, y = 0, d = r.start, tally = r.fine.codes[r.fine.start[best_count] + best_set];
        for (int c = best_count; c >= 1; c--) {
            int at = r.index[c][d * r.planes[c] + relax_at(&r, c, x, y)];
            int m = came[c][(long)r.fine.index[tally] * r.counts[c] + at];
            const int *mv = moves + 5 * m;
            uses[mv[0]]++;
            x -= mv[2]; y -= mv[3]; d = mv[1];
            tally -= r.fine.step[m];
        }
    }
    Py_END_ALLOW_THREADS
    PyObject *out;
    if (timed_out < 0) {
        out = PyErr_NoMemory();
    } else if (timed_out) {
        out = Py_None;
        Py_INCREF(out);
    } else {
        PyObject *counts = PyTuple_New(n_types);
        for (Py_ssize_t k = 0; k < n_types; k++) PyTuple_SET_ITEM(counts, k, PyLong_FromLong(uses[k]));
        out = Py_BuildValue("(diNl)", best, best_count, counts, live_states);
    }
    relax_free(&r, layers, came);
    free(uses);
    return out;
}

static PyMethodDef module_methods[] = {
    {"relaxed", relaxed, METH_VARARGS,
     "relaxed(moves, move_start, penalties, limits, groups, capacities, start, seconds, threads, floor, edges_most, coarse) -> (best doubled value, pieces, uses per type, live states) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fence", "boundary dynamic program of the fence search", -1, module_methods};

PyMODINIT_FUNC PyInit__fence(void) {
    if (PyType_Ready(&FenceType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&FenceType);
    PyModule_AddObject(m, "Fence", (PyObject *)&FenceType);
    return m;
}
