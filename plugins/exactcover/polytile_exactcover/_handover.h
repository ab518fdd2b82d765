/* Solutions found while the GIL is released, handed to the Python callback in batches.
 *
 * Taking the GIL back for every solution is cheap when nothing else runs Python, but a
 * search on a worker thread beside other Python work waits for the GIL each time (up to
 * the interpreter's switch interval).  So a kernel holds the solutions it finds and hands
 * them over, one callback call each, when HELD_BATCH are waiting or HELD_SECONDS have
 * passed since the last handover (a slow search still streams), and at the end of a run.
 * Shared by the dancing-links and bitboard kernels.
 */
#ifndef POLYTILE_HANDOVER_H
#define POLYTILE_HANDOVER_H

#include <Python.h>
#include <stdlib.h>

#define HELD_BATCH 64
#define HELD_SECONDS 0.05

typedef struct {
    int *ints;          /* per solution: its depth, then its options */
    int len, count;     /* ints used, solutions held */
    double handed_at;   /* when the last handover ended */
} Held;

/* Room for HELD_BATCH solutions of up to ``max_depth`` options; 0 when out of memory. */
static int held_init(Held *held, int max_depth) {
    held->ints = calloc((size_t)HELD_BATCH * (max_depth + 1), sizeof(int));
    held->len = held->count = 0;
    held->handed_at = 0;
    return held->ints != NULL;
}

static void held_free(Held *held) { free(held->ints); }

/* Keep one solution: ``options[k]``, or ``numbers[options[k]]`` when ``numbers`` is given. */
static void held_add(Held *held, const int *options, int depth, const int *numbers) {
    held->ints[held->len++] = depth;
    for (int k = 0; k < depth; k++) held->ints[held->len++] = numbers ? numbers[options[k]] : options[k];
    held->count++;
}

/* Whether the held solutions are due: a full batch, or waiting since ``now - HELD_SECONDS``. */
static int held_due(const Held *held, double now) {
    return held->count == HELD_BATCH || (held->count && now - held->handed_at > HELD_SECONDS);
}

/* Call ``callback`` on each held solution (a list of ints), with the GIL held; returns 0
 * with the exception set when a call fails.  Empties the batch either way. */
static int held_hand_over(Held *held, PyObject *callback, double now) {
    int ok = 1;
    for (int at = 0; ok && at < held->len;) {
        int depth = held->ints[at++];
        PyObject *ones = PyList_New(depth);
        ok = ones != NULL;
        for (int k = 0; ok && k < depth; k++) {
            PyObject *value = PyLong_FromLong(held->ints[at + k]);
            if (value == NULL) ok = 0; else PyList_SET_ITEM(ones, k, value);
        }
        at += depth;
        if (ok) {
            PyObject *answer = PyObject_CallOneArg(callback, ones);
            ok = answer != NULL;
            Py_XDECREF(answer);
        }
        Py_XDECREF(ones);
    }
    held->len = held->count = 0;
    held->handed_at = now;
    return ok;
}

/* ``held_hand_over`` from inside a search that released the GIL into ``*state``; on
 * failure, also sets ``*status`` to ``failed`` (the search then stops). */
static int held_hand_over_released(Held *held, PyObject *callback, PyThreadState **state, double now,
                                   int *status, int failed) {
    PyEval_RestoreThread(*state);
    int ok = held_hand_over(held, callback, now);
    *state = PyEval_SaveThread();
    if (!ok) *status = failed;
    return ok;
}

#endif
