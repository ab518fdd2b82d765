/* Reading a cover problem handed over from Python, written once for the three kernels.
 *
 * Every kernel is given its options as a sequence of rows and its groups (piece-count
 * rows) as a sequence of (lo, hi, ...).  An option row holds its items, a list at
 * ``items_at`` (the frontier gives masks instead: ``items_at`` < 0), and its memberships,
 * a list of (group, weight) at ``members_at``.  ``cover_input_read`` checks them (every
 * option has an item, items lie in [first_item, last_item], groups in range) and lays
 * them out in flat C arrays.  A kernel takes the arrays it keeps (setting them to NULL
 * here) and ``cover_input_free`` frees the rest, after a failure too.
 */
#ifndef POLYTILE_COVER_INPUT_H
#define POLYTILE_COVER_INPUT_H

#include <Python.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n_options, n_groups;
    long long *lo, *hi;                 /* per group */
    int *item_start, *items;            /* option o's items: items[item_start[o] .. item_start[o + 1]) */
    int *member_start, *member_group;   /* option o's memberships: member_start[o] .. member_start[o + 1] */
    long long *member_weight;
} CoverInput;

static void cover_input_free(CoverInput *in) {
    free(in->lo); free(in->hi); free(in->item_start); free(in->items);
    free(in->member_start); free(in->member_group); free(in->member_weight);
    memset(in, 0, sizeof *in);
}

/* ``seq[k]`` as a C integer; -1 with the exception set when it is not one. */
static int read_int(PyObject *seq, Py_ssize_t k, long long *out) {
    PyObject *item = PySequence_GetItem(seq, k);
    if (item == NULL) return -1;
    *out = PyLong_AsLongLong(item);
    Py_DECREF(item);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* ``row[at]`` as a fast sequence (a new reference), or NULL with the exception set. */
static PyObject *fast_item(PyObject *row, Py_ssize_t at) {
    PyObject *item = PySequence_GetItem(row, at);
    if (item == NULL) return NULL;
    PyObject *fast = PySequence_Fast(item, "expected a list");
    Py_DECREF(item);
    return fast;
}

/* Copy the integers of ``list`` (a fast sequence) to ``out`` from ``*used`` on: items in
 * [low, high], or, when ``pairs`` is given, (group, weight) pairs with the group in
 * [low, high] to ``out`` and the weight to ``pairs``.  0, or -1 with the exception set. */
static int read_list(PyObject *list, int *out, long long *pairs, int *used, long long low, long long high) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(list);
    PyObject **entries = PySequence_Fast_ITEMS(list);
    for (Py_ssize_t j = 0; j < n; j++) {
        long long value, second = 0;
        if (pairs) {
            PyObject *pair = PySequence_Fast(entries[j], "expected a (group, weight) pair");
            int bad = pair == NULL || read_int(pair, 0, &value) || read_int(pair, 1, &second);
            Py_XDECREF(pair);
            if (bad) return -1;
        } else {
            value = PyLong_AsLongLong(entries[j]);
            if (value == -1 && PyErr_Occurred()) return -1;
        }
        if (value < low || value > high) {
            PyErr_SetString(PyExc_ValueError, pairs ? "group out of range" : "item out of range");
            return -1;
        }
        out[*used] = (int)value;
        if (pairs) pairs[*used] = second;
        (*used)++;
    }
    return 0;
}

static int cover_input_read(CoverInput *in, PyObject *options, PyObject *groups, int items_at, int members_at,
                            long long first_item, long long last_item) {
    memset(in, 0, sizeof *in);
    Py_ssize_t n_options = PySequence_Length(options), n_groups = PySequence_Length(groups);
    if (n_options < 0 || n_groups < 0) return -1;
    in->n_options = (int)n_options;
    in->n_groups = (int)n_groups;
    in->lo = calloc(n_groups + 1, sizeof(long long));
    in->hi = calloc(n_groups + 1, sizeof(long long));
    in->item_start = calloc(n_options + 2, sizeof(int));
    in->member_start = calloc(n_options + 2, sizeof(int));
    /* Each option's items and memberships as fast sequences, held while they are read. */
    PyObject **lists = calloc(2 * (size_t)n_options + 1, sizeof(PyObject *));
    if (!in->lo || !in->hi || !in->item_start || !in->member_start || !lists) {
        free(lists);
        PyErr_NoMemory();
        return -1;
    }
    int ok = 1;
    for (Py_ssize_t g = 0; ok && g < n_groups; g++) {
        PyObject *bounds = PySequence_GetItem(groups, g);
        ok = bounds != NULL && !read_int(bounds, 0, &in->lo[g]) && !read_int(bounds, 1, &in->hi[g]);
        Py_XDECREF(bounds);
    }
    Py_ssize_t items = 0, memberships = 0;
    for (Py_ssize_t o = 0; ok && o < n_options; o++) {
        PyObject *row = PySequence_GetItem(options, o);
        PyObject **own = lists + 2 * o;
        own[0] = row && items_at >= 0 ? fast_item(row, items_at) : NULL;
        own[1] = row && (items_at < 0 || own[0]) ? fast_item(row, members_at) : NULL;
        Py_XDECREF(row);
        ok = own[1] != NULL;
        if (ok && items_at >= 0 && PySequence_Fast_GET_SIZE(own[0]) == 0) {
            PyErr_SetString(PyExc_ValueError, "every option needs at least one item");
            ok = 0;
        }
        if (ok) {
            items += own[0] ? PySequence_Fast_GET_SIZE(own[0]) : 0;
            memberships += PySequence_Fast_GET_SIZE(own[1]);
        }
    }
    if (ok) {
        in->items = calloc(items + 1, sizeof(int));
        in->member_group = calloc(memberships + 1, sizeof(int));
        in->member_weight = calloc(memberships + 1, sizeof(long long));
        if (!in->items || !in->member_group || !in->member_weight) { PyErr_NoMemory(); ok = 0; }
    }
    int item = 0, member = 0;
    for (Py_ssize_t o = 0; ok && o < n_options; o++) {
        in->item_start[o] = item;
        in->member_start[o] = member;
        PyObject **own = lists + 2 * o;
        ok = (!own[0] || !read_list(own[0], in->items, NULL, &item, first_item, last_item)) &&
             !read_list(own[1], in->member_group, in->member_weight, &member, 0, n_groups - 1);
    }
    in->item_start[n_options] = item;
    in->member_start[n_options] = member;
    for (Py_ssize_t k = 0; k < 2 * n_options; k++) Py_XDECREF(lists[k]);
    free(lists);
    return ok ? 0 : -1;
}

#endif
