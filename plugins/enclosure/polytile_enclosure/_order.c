/* The fence finder's dynamic program for one ORDER of the pieces (see finder.py).
 *
 * The boundary search (_fence.c) keeps a table per set of pieces; here the pieces come
 * in a fixed cyclic order instead, so a layer per piece is enough: layer c holds the
 * best doubled area of a partial curve that used (or, with ``skip``, parked) the first
 * c pieces of the order, per junction state (direction, x, y).  Each piece sits at one
 * place in the order, so no piece is used twice, and for this order the best closed
 * cycle is exact except for overlaps between pieces.  A walk back through the layers
 * (as trace() in _fence.c) then lists the cycles of the best value, level by level
 * downwards, skipping those whose pieces overlap, and measures each one's largest
 * pocket with the flood fill of _shared.h.
 *
 * A position is kept only if the pieces before it could reach it and the pieces after
 * it could bring the curve back (the sums of their reach), and never farther than
 * ``radius``.  With ``beam`` > 0 only the best ``beam`` states of a layer are kept
 * (a heuristic: faster, no longer exact for the order).  Runs with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_shared.h"

#define NEG INT32_MIN
#define NO_WAY (-1e300)
enum { MOVE_INTS = 5, VISIT_INTS = 8 };

/* One layer: the states (direction, x, y) with |x| + |y| <= limit, stored as four
 * diamonds; row[i] is where column x = i - limit starts in a diamond. */
typedef struct {
    int limit;
    long size, base, *row;
} Layer;

static inline long slot_of(const Layer *layer, int d, int x, int y) {
    return layer->base + d * layer->size + layer->row[x + layer->limit] + y + layer->limit - absolute(x);
}

static inline int inside(const Layer *layer, int x, int y) { return absolute(x) + absolute(y) <= layer->limit; }

/* Lay a layer of the given limit out after ``*total`` values; 0 if out of memory. */
static int lay_out(Layer *layer, int limit, long *total) {
    layer->limit = limit;
    layer->row = malloc(sizeof(long) * (2 * limit + 1));
    if (!layer->row) return 0;
    long size = 0;
    for (int x = -limit; x <= limit; x++) {
        layer->row[x + limit] = size;
        size += 2 * (limit - absolute(x)) + 1;
    }
    layer->size = size;
    layer->base = *total;
    *total += 4 * size;
    return 1;
}

typedef struct {
    PyObject_HEAD
    int neighbours, radius, cell_radius, n_shapes, largest;
    int *moves, *move_start;     /* d_in, d_out, dx, dy, area2; grouped by type*4 + d_in */
    int *visits, *visit_start;   /* d_in, d_out, dx, dy, area2, shape, ox, oy; by type*4 + d_out */
    int *reach;                  /* per type: the farthest one move goes */
    int *cell_start, *cells;     /* shape -> its cells */
    /* The way back (optional, see Orders_rest): rest[k] bounds the doubled value a curve
     * can still add from a state with k pieces left, at prices ``price2`` per type. */
    int rest_n;
    Layer *rest;
    double *rest_value, *price2;
    volatile int cancelled;
} Orders;

static void free_rest(Orders *self) {
    if (self->rest)
        for (int k = 0; k <= self->rest_n; k++) free(self->rest[k].row);
    free(self->rest); free(self->rest_value); free(self->price2);
    self->rest = NULL; self->rest_value = NULL; self->price2 = NULL; self->rest_n = 0;
}


static void Orders_dealloc(Orders *self) {
    free(self->moves); free(self->move_start); free(self->visits); free(self->visit_start);
    free(self->reach); free(self->cell_start); free(self->cells);
    free_rest(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Orders_init(Orders *self, PyObject *args, PyObject *kwds) {
    PyObject *b[7];
    if (!PyArg_ParseTuple(args, "iiiOOOOOOO", &self->neighbours, &self->radius, &self->cell_radius, &b[0], &b[1],
                          &b[2], &b[3], &b[4], &b[5], &b[6]))
        return -1;
    int **targets[7] = {&self->moves, &self->move_start, &self->visits, &self->visit_start,
                        &self->reach, &self->cell_start, &self->cells};
    Py_ssize_t counts[7];
    for (int k = 0; k < 7; k++)
        if (!(*targets[k] = copy_ints(b[k], &counts[k]))) return -1;
    self->n_shapes = (int)counts[5] - 1;
    for (int s = 0; s < self->n_shapes; s++)
        if (self->cell_start[s + 1] - self->cell_start[s] > self->largest)
            self->largest = self->cell_start[s + 1] - self->cell_start[s];
    return 0;
}




typedef struct {
    Orders *self;
    int n, start, skip, *order;
    Layer *layers;
    int32_t *value;
    double deadline;
    long nodes, node_limit;
    int stopped, target;
    unsigned char *occupied;
    int *path, depth;            /* per depth: order position, visit, x, y */
    int *fence, *grid, *stack;   /* the flood fill's buffers */
    int best, *best_path, best_depth, *best_pocket;
    double floor, *offset;       /* with the way back: drop states that cannot reach floor */
} Search;

/* The k-th largest of values[0 .. count - 1] (k from 1), reordering them (quickselect). */
static int32_t kth_largest(int32_t *values, long count, long k) {
    long low = 0, high = count - 1, want = k - 1;
    while (low < high) {
        int32_t pivot = values[low + (high - low) / 2];
        long i = low, j = high;
        while (i <= j) {
            while (values[i] > pivot) i++;
            while (values[j] < pivot) j--;
            if (i <= j) {
                int32_t t = values[i]; values[i] = values[j]; values[j] = t;
                i++; j--;
            }
        }
        if (want <= j) high = j;
        else if (want >= i) low = i;
        else break;
    }
    return values[want];
}

static void keep_best(Search *s, const Layer *here, int beam, int32_t *scratch);

/* Drop the states of layer c from which no cycle reaches ``floor``: a state's value, plus
 * the most the pieces left could add (the way back, for any pieces), plus the prices
 * those pieces would pay back, falls short of it. */
static void prune(Search *s, int c) {
    Orders *self = s->self;
    const Layer *here = &s->layers[c], *back = &self->rest[s->n - c];
    double need = s->floor - s->offset[c] - 1e-6;
    int limit = here->limit;
    for (int d = 0; d < 4; d++)
        for (int x = -limit; x <= limit; x++) {
            int span = limit - absolute(x);
            for (int y = -span; y <= span; y++) {
                int32_t *v = s->value + slot_of(here, d, x, y);
                if (*v == NEG) continue;
                double more = inside(back, x, y) ? self->rest_value[slot_of(back, d, x, y)] : NO_WAY;
                if (*v + more < need) *v = NEG;
            }
        }
}

/* Fill layer c from layer c - 1; with a beam, keep its best ``beam`` states.  0 if stopped. */
static int fill(Search *s, int c, int beam, int32_t *scratch) {
    Orders *self = s->self;
    const Layer *before = &s->layers[c - 1], *here = &s->layers[c];
    int32_t *out = s->value;
    for (long k = 0; k < 4 * here->size; k++) out[here->base + k] = NEG;
    int type = s->order[c - 1], limit = before->limit;
    for (int d = 0; d < 4; d++) {
        int m0 = self->move_start[type * 4 + d], m1 = self->move_start[type * 4 + d + 1];
        for (int x = -limit; x <= limit; x++) {
            int span = limit - absolute(x);
            const int32_t *column = out + slot_of(before, d, x, 0);
            for (int y = -span; y <= span; y++) {
                int32_t value = column[y];
                if (value == NEG) continue;
                if (s->skip && inside(here, x, y)) {
                    int32_t *slot = out + slot_of(here, d, x, y);
                    if (*slot < value) *slot = value;
                }
                for (int m = m0; m < m1; m++) {
                    const int *mv = self->moves + m * MOVE_INTS;
                    int nx = x + mv[2], ny = y + mv[3];
                    if (!inside(here, nx, ny)) continue;
                    int32_t gain = value + mv[4] + x * mv[3] - y * mv[2];
                    int32_t *slot = out + slot_of(here, mv[1], nx, ny);
                    if (*slot < gain) *slot = gain;
                }
            }
        }
        if (self->cancelled || (s->deadline > 0 && now() > s->deadline)) return 0;
    }
    if (s->offset) prune(s, c);
    if (beam > 0) keep_best(s, here, beam, scratch);
    return 1;
}

/* The beam: keep the best states of a layer, ``beam`` in all, the same number in each of
 * BANDS bands of distance from the start, so that states near it, which the last pieces
 * can still bring back, are not all crowded out by farther ones of larger value (with one
 * band, a random order of the 107 simple heptominoes closed no cycle at all). */
enum { BANDS = 8 };

static inline int band_of(const Layer *layer, int x, int y) {
    int band = (absolute(x) + absolute(y)) * BANDS / (layer->limit + 1);
    return band < BANDS ? band : BANDS - 1;
}

static void keep_best(Search *s, const Layer *here, int beam, int32_t *scratch) {
    int32_t *value = s->value;
    long count[BANDS] = {0}, start[BANDS], filled[BANDS];
    int32_t threshold[BANDS];
    int limit = here->limit, each = beam / BANDS > 0 ? beam / BANDS : 1;
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < 4; d++)
            for (int x = -limit; x <= limit; x++) {
                int span = limit - absolute(x);
                for (int y = -span; y <= span; y++) {
                    int32_t v = value[slot_of(here, d, x, y)];
                    if (v == NEG) continue;
                    int band = band_of(here, x, y);
                    if (pass == 0) count[band]++;
                    else scratch[filled[band]++] = v;
                }
            }
        if (pass == 0) {
            long total = 0;
            for (int b = 0; b < BANDS; b++) { start[b] = filled[b] = total; total += count[b]; }
            if (total <= beam) return;
        }
    }
    for (int b = 0; b < BANDS; b++)
        threshold[b] = count[b] > each ? kth_largest(scratch + start[b], count[b], each) : NEG;
    for (int d = 0; d < 4; d++)
        for (int x = -limit; x <= limit; x++) {
            int span = limit - absolute(x);
            for (int y = -span; y <= span; y++) {
                int32_t *v = value + slot_of(here, d, x, y);
                if (*v != NEG && *v < threshold[band_of(here, x, y)]) *v = NEG;
            }
        }
}

static int place(Search *s, const int *visit, int x, int y, int mark) {
    Orders *self = s->self;
    return place_visit(self->cell_start, self->cells, self->cell_radius, s->occupied, visit, x, y, mark);
}

/* A whole cycle is on the path: measure its largest pocket, keep it if it is the best. */
static void record(Search *s) {
    Orders *self = s->self;
    int count = 0;
    for (int k = 0; k < s->depth; k++) {
        const int *slot = s->path + 4 * k, *visit = self->visits + slot[1] * VISIT_INTS;
        for (int c = self->cell_start[visit[5]]; c < self->cell_start[visit[5] + 1]; c++, count++) {
            s->fence[2 * count] = self->cells[2 * c] + slot[2] + visit[6];
            s->fence[2 * count + 1] = self->cells[2 * c + 1] + slot[3] + visit[7];
        }
    }
    if (count == 0) return;
    int size = largest_pocket(s->fence, count, self->neighbours, s->grid, s->stack, NULL);
    if (size <= s->best) return;
    s->best = size;
    s->best_depth = s->depth;
    memcpy(s->best_path, s->path, sizeof(int) * 4 * s->depth);
}

/* Backwards from state (x, y, d) after c pieces of the order, with ``gained`` still to add. */
static void walk_back(Search *s, int c, int x, int y, int d, int gained) {
    Orders *self = s->self;
    if (s->stopped) return;
    if (++s->nodes > s->node_limit || ((s->nodes & 4095) == 0 && (self->cancelled || (s->deadline > 0 && now() > s->deadline)))) {
        s->stopped = 1;
        return;
    }
    if (c == 0) {
        if (x == 0 && y == 0 && d == s->start) record(s);
        if (2 * s->best >= s->target) s->stopped = 1;
        return;
    }
    const Layer *before = &s->layers[c - 1];
    if (s->skip && inside(before, x, y)) {
        int32_t value = s->value[slot_of(before, d, x, y)];
        if (value != NEG && value + gained >= s->target) walk_back(s, c - 1, x, y, d, gained);
    }
    int type = s->order[c - 1];
    for (int v = self->visit_start[type * 4 + d]; v < self->visit_start[type * 4 + d + 1] && !s->stopped; v++) {
        const int *visit = self->visits + v * VISIT_INTS;
        int px = x - visit[2], py = y - visit[3];
        if (!inside(before, px, py)) continue;
        int32_t value = s->value[slot_of(before, visit[0], px, py)];
        if (value == NEG) continue;
        int gain = visit[4] + px * visit[3] - py * visit[2];
        if (value + gain + gained < s->target || !place(s, visit, px, py, 1)) continue;
        int *slot = s->path + 4 * s->depth;
        slot[0] = c - 1; slot[1] = v; slot[2] = px; slot[3] = py;
        s->depth++;
        walk_back(s, c - 1, px, py, visit[0], gained + gain);
        s->depth--;
        place(s, visit, px, py, 0);
    }
}

/* best(order, start, skip, beam, levels, nodes, seconds) -> see the method table. */
static PyObject *Orders_best(Orders *self, PyObject *args) {
    PyObject *order_bytes;
    int start, skip, beam, levels;
    long node_limit;
    double seconds, floor = NO_WAY;
    if (!PyArg_ParseTuple(args, "Oiiiild|d", &order_bytes, &start, &skip, &beam, &levels, &node_limit, &seconds,
                          &floor))
        return NULL;
    Py_ssize_t n;
    Search s = {0};
    s.self = self; s.start = start; s.skip = skip; s.node_limit = node_limit; s.floor = floor;
    s.order = copy_ints(order_bytes, &n);
    if (!s.order) return NULL;
    s.n = (int)n;
    if (floor > NO_WAY && self->rest && self->rest_n == s.n) {
        s.offset = malloc(sizeof(double) * (n + 1));
        if (!s.offset) { free(s.order); return PyErr_NoMemory(); }
        s.offset[n] = 0;
        for (int c = (int)n - 1; c >= 0; c--) s.offset[c] = s.offset[c + 1] + self->price2[s.order[c]];
    }
    s.layers = calloc(n + 1, sizeof(Layer));
    int *reach_before = malloc(sizeof(int) * (n + 1)), *reach_after = malloc(sizeof(int) * (n + 1));
    if (!s.layers || !reach_before || !reach_after) goto no_memory;
    reach_before[0] = 0;
    for (int c = 0; c < n; c++) reach_before[c + 1] = reach_before[c] + self->reach[s.order[c]];
    reach_after[n] = 0;
    for (int c = (int)n - 1; c >= 0; c--) reach_after[c] = reach_after[c + 1] + self->reach[s.order[c]];
    long total = 0, widest = 1;
    for (int c = 0; c <= n; c++) {
        int limit = reach_before[c] < reach_after[c] ? reach_before[c] : reach_after[c];
        if (!lay_out(&s.layers[c], limit < self->radius ? limit : self->radius, &total)) goto no_memory;
        if (4 * s.layers[c].size > widest) widest = 4 * s.layers[c].size;
    }
    int cell_width = 2 * self->cell_radius + 1;
    s.value = malloc(sizeof(int32_t) * total);
    int32_t *scratch = beam > 0 ? malloc(sizeof(int32_t) * widest) : NULL;
    s.occupied = calloc((size_t)cell_width * cell_width, 1);
    s.path = malloc(sizeof(int) * 4 * (n + 1));
    s.best_path = malloc(sizeof(int) * 4 * (n + 1));
    s.fence = malloc(sizeof(int) * 2 * (size_t)self->largest * (n + 1));
    s.grid = malloc(sizeof(int) * (size_t)(cell_width + 2) * (cell_width + 2));
    s.stack = malloc(sizeof(int) * (size_t)(cell_width + 2) * (cell_width + 2));
    if (!s.value || (beam > 0 && !scratch) || !s.occupied || !s.path || !s.best_path || !s.fence || !s.grid || !s.stack) {
        free(scratch);
        goto no_memory;
    }
    int completed = 1, closing = NEG, final_target = 0;
    Py_BEGIN_ALLOW_THREADS
    s.deadline = seconds > 0 ? now() + seconds : 0;
    s.value[slot_of(&s.layers[0], start, 0, 0)] = 0;
    for (int d = 0; d < 4; d++)
        if (d != start) s.value[slot_of(&s.layers[0], d, 0, 0)] = NEG;
    for (int c = 1; c <= n && completed; c++) completed = fill(&s, c, beam, scratch);
    if (completed) {
        closing = s.value[slot_of(&s.layers[n], start, 0, 0)];
        /* Level by level down from the best closing value, until a fence encloses the level. */
        for (int level = 0; level < levels && closing != NEG && !s.stopped; level++) {
            s.target = closing - 2 * level;
            if (s.target <= 2 * s.best || s.target <= 0) break;
            final_target = s.target;
            walk_back(&s, (int)n, 0, 0, start, 0);
        }
        if (s.stopped && s.best == 0 && (self->cancelled || (s.deadline > 0 && now() > s.deadline))) completed = 0;
    }
    Py_END_ALLOW_THREADS
    free(scratch);
    PyObject *out = NULL;
    if (!completed) {
        out = Py_None;
        Py_INCREF(out);
    } else {
        PyObject *cycle = PyTuple_New(s.best_depth);
        for (int k = 0; k < s.best_depth; k++) {
            int *slot = s.best_path + 4 * k;
            PyTuple_SET_ITEM(cycle, k, Py_BuildValue("(iiii)", slot[0], slot[1], slot[2], slot[3]));
        }
        out = Py_BuildValue("(iiNli)", closing == NEG ? -1 : closing, s.best, cycle, s.nodes, final_target);
    }
    for (int c = 0; c <= n; c++) free(s.layers[c].row);
    free(s.layers); free(reach_before); free(reach_after); free(s.order); free(s.value); free(s.occupied);
    free(s.path); free(s.best_path); free(s.fence); free(s.grid); free(s.stack); free(s.offset);
    return out;
no_memory:
    if (s.layers)
        for (int c = 0; c <= n; c++) free(s.layers[c].row);
    free(s.layers); free(reach_before); free(reach_after); free(s.order); free(s.value); free(s.occupied);
    free(s.path); free(s.best_path); free(s.fence); free(s.grid); free(s.stack); free(s.offset);
    return PyErr_NoMemory();
}

/* rest(moves, gains, move_start, limits, prices2, starts) -> the most a cycle of n pieces
 * can reach at these prices (before they are paid back).  It sets the way back: rest[k] holds,
 * per state, the most a curve of at most k more moves can add before it closes at (0, 0)
 * in one of the ``starts`` directions (a bit mask), each move any of ``moves`` (int32
 * rows d_in, d_out, dx, dy grouped by d_in, from ``move_start``) with its doubled area
 * less its type's doubled price (``gains``, doubles), within ``limits[k]`` of the
 * origin; ``prices2``, each type's doubled price, is paid back per piece left. */
static PyObject *Orders_rest(Orders *self, PyObject *args) {
    PyObject *b[5];
    int starts;
    if (!PyArg_ParseTuple(args, "OOOOOi", &b[0], &b[1], &b[2], &b[3], &b[4], &starts)) return NULL;
    Py_ssize_t counts[5];
    int *raw[5] = {0};
    for (int k = 0; k < 5; k++)
        if (!(raw[k] = copy_ints(b[k], &counts[k]))) {
            for (int j = 0; j < k; j++) free(raw[j]);
            return NULL;
        }
    int *moves = raw[0], *move_start = raw[2], *limits = raw[3], n = (int)counts[3] - 1;
    double *gains = (double *)raw[1];
    free_rest(self);
    long total = 0;
    self->rest = calloc(n + 1, sizeof(Layer));
    int laid = self->rest != NULL;
    for (int k = 0; k <= n && laid; k++) laid = lay_out(&self->rest[k], limits[k], &total);
    if (laid) self->rest_value = malloc(sizeof(double) * (total > 0 ? total : 1));
    if (!laid || !self->rest_value) {
        self->rest_n = n;
        free_rest(self);
        free(moves); free(gains); free(move_start); free(limits); free(raw[4]);
        return PyErr_NoMemory();
    }
    self->rest_n = n;
    self->price2 = (double *)raw[4];
    double *value = self->rest_value;
    Py_BEGIN_ALLOW_THREADS
    for (long k = 0; k < 4 * self->rest[0].size; k++) value[k] = NO_WAY;
    for (int d = 0; d < 4; d++)
        if (starts & (1 << d)) value[slot_of(&self->rest[0], d, 0, 0)] = 0;
    for (int k = 1; k <= n; k++) {
        const Layer *after = &self->rest[k - 1], *here = &self->rest[k];
        int limit = here->limit;
        for (int d = 0; d < 4; d++)
            for (int x = -limit; x <= limit; x++) {
                int span = limit - absolute(x);
                for (int y = -span; y <= span; y++) {
                    double best = inside(after, x, y) ? value[slot_of(after, d, x, y)] : NO_WAY;
                    for (int m = move_start[d]; m < move_start[d + 1]; m++) {
                        const int *mv = moves + 4 * m;
                        int nx = x + mv[2], ny = y + mv[3];
                        if (!inside(after, nx, ny)) continue;
                        double then = value[slot_of(after, mv[1], nx, ny)];
                        if (then == NO_WAY) continue;
                        double gain = gains[m] + x * mv[3] - y * mv[2] + then;
                        if (gain > best) best = gain;
                    }
                    value[slot_of(here, d, x, y)] = best;
                }
            }
    }
    Py_END_ALLOW_THREADS
    free(moves); free(gains); free(move_start); free(limits);
    double most = NO_WAY;  /* what any order's cycle can reach, before the prices are paid back */
    for (int d = 0; d < 4; d++)
        if ((starts & (1 << d)) && inside(&self->rest[n], 0, 0) && value[slot_of(&self->rest[n], d, 0, 0)] > most)
            most = value[slot_of(&self->rest[n], d, 0, 0)];
    return PyFloat_FromDouble(most);
}

static PyObject *Orders_cancel(Orders *self, PyObject *unused) {
    self->cancelled = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Orders_methods[] = {
    {"best", (PyCFunction)Orders_best, METH_VARARGS,
     "best(order, start, skip, beam, levels, nodes, seconds[, floor]) -> (best closing doubled value or -1, largest pocket "
     "of a non-overlapping cycle found or 0, its cycle as (order position, visit, x, y), nodes walked, last level "
     "walked (doubled)), or None if out of time or cancelled"},
    {"rest", (PyCFunction)Orders_rest, METH_VARARGS,
     "rest(moves, gains, move_start, limits, prices2, starts) -> the most a cycle reaches before its prices are "
     "paid back; sets the way back, by which best(..., floor) drops "
     "the states from which no cycle reaches floor (see the C source)"},
    {"cancel", (PyCFunction)Orders_cancel, METH_NOARGS, "ask running searches to stop soon (any thread)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject OrdersType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "polytile_enclosure._order.Orders",
    .tp_basicsize = sizeof(Orders),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Orders_init,
    .tp_dealloc = (destructor)Orders_dealloc,
    .tp_methods = Orders_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_order", "the fence finder's dynamic program over one order of the pieces", -1, NULL};

PyMODINIT_FUNC PyInit__order(void) {
    if (PyType_Ready(&OrdersType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&OrdersType);
    PyModule_AddObject(m, "Orders", (PyObject *)&OrdersType);
    return m;
}
