/* What _fence.c and _order.c share: reading int32 tables, the clock, placing a visit's
 * cells on a grid of taken cells, and the largest pocket of a fence by a flood fill.
 *
 * The flood fill: the fence's cells are laid on their bounding box with a frame of one cell round it;
 * the outside is flooded from the frame over the rule's neighbours (8: it leaks through
 * corners; 4: it does not), and the largest component of what is left is the pocket.
 * The caller gives ``grid`` and ``stack`` room for (box width + 2) * (box height + 2) ints.
 */
#ifndef POLYTILE_SHARED_H
#define POLYTILE_SHARED_H
#include <string.h>
#include <time.h>  /* included after Python.h */

/* A copy of the int32 values in a bytes object (and their number); NULL with an exception set. */
static int *copy_ints(PyObject *bytes, Py_ssize_t *count) {
    char *data;
    Py_ssize_t size;
    if (PyBytes_AsStringAndSize(bytes, &data, &size) < 0) return NULL;
    int *out = malloc(size > 0 ? size : 1);
    if (!out) { PyErr_NoMemory(); return NULL; }
    memcpy(out, data, size);
    if (count) *count = size / (Py_ssize_t)sizeof(int);
    return out;
}

static inline int absolute(int x) { return x < 0 ? -x : x; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Place (or, with mark = 0, lift) a visit's cells (its shape moved by (x, y) and the
 * visit's offset) on ``occupied``, a square grid of cells within ``radius`` of the
 * origin; 0, with nothing placed, if a cell is taken or off the grid. */
static int place_visit(const int *cell_start, const int *cells, int radius, unsigned char *occupied, const int *visit,
                       int x, int y, int mark) {
    int shape = visit[5], r = radius, w = 2 * radius + 1;
    for (int c = cell_start[shape]; c < cell_start[shape + 1]; c++) {
        int cx = cells[2 * c] + x + visit[6], cy = cells[2 * c + 1] + y + visit[7];
        if (absolute(cx) > r || absolute(cy) > r) return 0;
        unsigned char *cell = occupied + (long)(cx + r) * w + (cy + r);
        if (mark && *cell) {
            for (int u = cell_start[shape]; u < c; u++)
                occupied[(long)(cells[2 * u] + x + visit[6] + r) * w + (cells[2 * u + 1] + y + visit[7] + r)] = 0;
            return 0;
        }
        *cell = (unsigned char)mark;
    }
    return 1;
}

enum { POCKET_FREE = 0, POCKET_FENCE = 1, POCKET_OUTSIDE = 2 };  /* then a label per pocket, from 3 */
static const int POCKET_STEPS[8][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {-1, -1}, {1, -1}};

/* Label the free cells joined to ``from`` under the rule's steps; their number. */
static int pocket_fill(int *grid, int *stack, int from, int bw, int bh, int label, int neighbours) {
    int top = 0, count = 0;
    grid[from] = label;
    stack[top++] = from;
    while (top > 0) {
        int at = stack[--top], i = at / bh, j = at % bh;
        count++;
        for (int s = 0; s < neighbours; s++) {
            int ni = i + POCKET_STEPS[s][0], nj = j + POCKET_STEPS[s][1];
            if (ni < 0 || nj < 0 || ni >= bw || nj >= bh || grid[ni * bh + nj] != POCKET_FREE) continue;
            grid[ni * bh + nj] = label;
            stack[top++] = ni * bh + nj;
        }
    }
    return count;
}

/* The box of ``count`` cells (x, y pairs): its width and height with the frame. */
static void pocket_box(const int *cells, int count, int *low_x, int *low_y, int *bw, int *bh) {
    int lx = 1 << 30, ly = 1 << 30, hx = -(1 << 30), hy = -(1 << 30);
    for (int k = 0; k < count; k++) {
        int x = cells[2 * k], y = cells[2 * k + 1];
        if (x < lx) lx = x;
        if (x > hx) hx = x;
        if (y < ly) ly = y;
        if (y > hy) hy = y;
    }
    *low_x = lx; *low_y = ly; *bw = hx - lx + 3; *bh = hy - ly + 3;
}

/* The size of the largest pocket of the fence ``cells``; its cells (x, y pairs) go to
 * ``out`` when it is not NULL (room for the box's cells). */
static int largest_pocket(const int *cells, int count, int neighbours, int *grid, int *stack, int *out) {
    int low_x, low_y, bw, bh;
    if (count <= 0) return 0;  /* no fence, no pocket */
    pocket_box(cells, count, &low_x, &low_y, &bw, &bh);
    memset(grid, 0, sizeof(int) * (size_t)bw * bh);
    for (int k = 0; k < count; k++) grid[(cells[2 * k] - low_x + 1) * bh + (cells[2 * k + 1] - low_y + 1)] = POCKET_FENCE;
    int best = 0, best_label = 0, label = POCKET_OUTSIDE;
    pocket_fill(grid, stack, 0, bw, bh, POCKET_OUTSIDE, neighbours);  /* the frame is outside, joined under either rule */
    for (int at = 0; at < bw * bh; at++) {
        if (grid[at] != POCKET_FREE) continue;
        int size = pocket_fill(grid, stack, at, bw, bh, ++label, neighbours);
        if (size > best) { best = size; best_label = label; }
    }
    if (out)
        for (int at = 0, n = 0; at < bw * bh && best > 0; at++)
            if (grid[at] == best_label) {
                out[n++] = at / bh + low_x - 1;
                out[n++] = at % bh + low_y - 1;
            }
    return best;
}
#endif
