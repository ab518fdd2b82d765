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

/* relaxed(moves, move_start, penalties, limits, n_types, radius, start, seconds): the
 * dynamic program of bound.py.  Like dp() but over (number of pieces placed, direction,
 * position) instead of (set of pieces, direction, position): any piece may be placed
 * again, at the price 2 * penalties[type] (doubles) on top of its doubled gain.
 * ``moves`` are int32 rows (type, d_in, dx, dy, area2) grouped by d_out (move_start[d]
 * .. move_start[d + 1]); limits[c] is how far from the origin a path of c pieces may
 * stand (the reach of the pieces left).  Returns (best doubled value, pieces, uses per
 * type) of the best cycle from (origin, start) back to it, or None when out of time.
 * Each layer's four directions are shared between two threads. */
typedef struct {
    int *moves, *move_start, radius, reach, limit, d_from, d_to;
    const double *penalty;
    double *before, *here;
    int *came;
} Layer;

static void *fill_layer(void *arg) {
    Layer *job = arg;
    int radius = job->radius, width = 2 * radius + 1, limit = job->limit, reach = job->reach;
    long plane = (long)width * width;
    for (int d = job->d_from; d < job->d_to; d++)
        for (int x = -limit; x <= limit; x++) {
            int span = limit - absolute(x);
            for (int y = -span; y <= span; y++) {
                double top = -1e300;
                int arg_best = -1;
                for (int m = job->move_start[d]; m < job->move_start[d + 1]; m++) {
                    int *mv = job->moves + 5 * m, px = x - mv[2], py = y - mv[3];
                    if (absolute(px) + absolute(py) > reach) continue;
                    double v = job->before[mv[1] * plane + (long)(px + radius) * width + (py + radius)];
                    if (v <= -1e299) continue;
                    double gain = v + mv[4] - 2 * job->penalty[mv[0]] + (double)px * mv[3] - (double)py * mv[2];
                    if (gain > top) { top = gain; arg_best = m; }
                }
                long at = d * plane + (long)(x + radius) * width + (y + radius);
                job->here[at] = top;
                job->came[at] = arg_best;
            }
        }
    return NULL;
}

static PyObject *relaxed(PyObject *module, PyObject *args) {
    PyObject *moves_bytes, *start_bytes, *penalty_bytes, *limit_bytes;
    int radius, start, n_types;
    double seconds;
    if (!PyArg_ParseTuple(args, "OOOOiiid", &moves_bytes, &start_bytes, &penalty_bytes, &limit_bytes, &n_types, &radius,
                          &start, &seconds))
        return NULL;
    Py_ssize_t n_limits;
    int *moves = copy_ints(moves_bytes, NULL), *move_start = copy_ints(start_bytes, NULL);
    int *limits = copy_ints(limit_bytes, &n_limits);
    char *penalty_data;
    Py_ssize_t penalty_size;
    if (!moves || !move_start || !limits || PyBytes_AsStringAndSize(penalty_bytes, &penalty_data, &penalty_size) < 0) {
        free(moves); free(move_start); free(limits);
        return NULL;
    }
    const double *penalty = (const double *)penalty_data;
    int n = (int)n_limits - 1, width = 2 * radius + 1, timed_out = 0;
    long plane = (long)width * width, layer = 4 * plane, states = (long)(n + 1) * layer;
    double *value = malloc(sizeof(double) * states);
    int *from = malloc(sizeof(int) * states);
    int *uses = calloc(n_types, sizeof(int));
    if (!value || !from || !uses) {
        free(moves); free(move_start); free(limits); free(value); free(from); free(uses);
        return PyErr_NoMemory();
    }
    double deadline = seconds > 0 ? now() + seconds : 0, best = -1e300;
    int best_count = 0;
    Py_BEGIN_ALLOW_THREADS
    for (long k = 0; k < states; k++) { value[k] = -1e300; from[k] = -1; }
    for (int d = 0; d < 4; d++)
        for (int m = move_start[d]; m < move_start[d + 1]; m++) {
            int *mv = moves + 5 * m;
            if (mv[1] != start || absolute(mv[2]) + absolute(mv[3]) > limits[1]) continue;
            long at = layer + d * plane + (long)(mv[2] + radius) * width + (mv[3] + radius);
            double gain = mv[4] - 2 * penalty[mv[0]];
            if (gain > value[at]) { value[at] = gain; from[at] = m; }
        }
    for (int c = 2; c <= n && !timed_out; c++) {
        if (deadline > 0 && now() > deadline) timed_out = 1;
        Layer jobs[2];
        for (int k = 0; k < 2; k++)
            jobs[k] = (Layer){moves, move_start, radius, limits[c - 1], limits[c], 2 * k, 2 * k + 2, penalty,
                              value + (long)(c - 1) * layer, value + (long)c * layer, from + (long)c * layer};
        pthread_t helper;
        int threaded = pthread_create(&helper, NULL, fill_layer, &jobs[1]) == 0;
        fill_layer(&jobs[0]);
        if (threaded) pthread_join(helper, NULL); else fill_layer(&jobs[1]);
    }
    long origin = (long)start * plane + (long)radius * width + radius;
    for (int c = 1; c <= n; c++)
        if (value[(long)c * layer + origin] > best) { best = value[(long)c * layer + origin]; best_count = c; }
    if (best > -1e299) {
        int x = 0, y = 0, d = start;
        for (int c = best_count; c >= 1; c--) {
            int *mv = moves + 5 * from[(long)c * layer + d * plane + (long)(x + radius) * width + (y + radius)];
            uses[mv[0]]++;
            x -= mv[2]; y -= mv[3]; d = mv[1];
        }
    }
    Py_END_ALLOW_THREADS
    PyObject *out;
    if (timed_out) {
        out = Py_None;
        Py_INCREF(out);
    } else {
        PyObject *counts = PyTuple_New(n_types);
        for (int k = 0; k < n_types; k++) PyTuple_SET_ITEM(counts, k, PyLong_FromLong(uses[k]));
        out = Py_BuildValue("(diN)", best, best_count, counts);
    }
    free(moves); free(move_start); free(limits); free(value); free(from); free(uses);
    return out;
}

static PyMethodDef module_methods[] = {
    {"relaxed", relaxed, METH_VARARGS,
     "relaxed(moves, move_start, penalties, limits, n_types, radius, start, seconds) -> (best doubled value, pieces, uses per type) or None"},
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
