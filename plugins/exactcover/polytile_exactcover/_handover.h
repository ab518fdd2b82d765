/* Solutions found while the GIL is released, handed to Python in batches.
 *
 * Taking the GIL back for every solution is cheap when nothing else runs Python, but a
 * search on a worker thread beside other Python work waits for the GIL each time (up to
 * the interpreter's switch interval).  So a kernel holds the solutions it finds and hands
 * them over when a batch is full or HELD_SECONDS have passed since the last handover (a
 * slow search still streams), and at the end of a run.  Shared by the dancing-links and
 * bitboard kernels.
 *
 * A run's ``callback`` is None (count only), a callable (called with each solution's
 * options, a list of ints), or a *line request* (``polytile_exactcover.search.LineRequest``):
 * a listing to .jsonl, whose lines are made here, with the GIL released, from each
 * placement's text, and handed on a batch at a time as UTF-8 bytes.  Making a line in
 * Python costs several times what finding a tiling does, and under the GIL it keeps two
 * threads from listing faster than one.
 */
#ifndef POLYTILE_HANDOVER_H
#define POLYTILE_HANDOVER_H

#include <Python.h>
#include <stdlib.h>
#include <string.h>

#define HELD_BATCH 64      /* solutions per handover to a callable */
#define LINES_BATCH 1024   /* solutions per handover of lines: one call each, not one per solution */
#define HELD_SECONDS 0.05

#define TEXT_UNKNOWN (-1)  /* a model variable's text not asked for yet (``Lines.text_at``) */

/* A line request, as read at the start of a run. */
typedef struct {
    PyObject *sink, *text_of;
    int *variables; Py_ssize_t n_variables;            /* option -> model variable */
    unsigned char *kept;                               /* per model variable: on a solution; NULL: all */
    int *images; Py_ssize_t n_images, image_size;      /* permutations of the model variables */
    char *head, *tail; Py_ssize_t head_len, tail_len;  /* a line: head, texts joined by ",", tail */
    long long firsts;                                  /* solutions still to hand on as lists */
    Py_ssize_t n_texts;                                /* model variables the table can hold */
    long long *text_at; int *text_len;                 /* each variable's text in ``blob`` */
    char *blob; size_t blob_len, blob_cap;
    char *out; size_t out_len, out_cap;                /* the lines made and not handed on yet */
    long long made;                                    /* how many lines that is */
    int *first_ints; size_t first_len, first_cap;      /* per first solution: its length, its variables */
    int *scratch; Py_ssize_t scratch_cap;
    unsigned long long *seen; Py_ssize_t seen_words;  /* a bit per model variable, to sort by */
} Lines;

typedef struct {
    int *ints;          /* per solution: its depth, then its options */
    size_t len, cap;    /* ints used, room */
    int count, batch;   /* solutions held, and how many make a handover due */
    int out_of_memory;  /* held_add could not grow: the next handover fails */
    double handed_at;   /* when the last handover ended */
    Lines *lines;       /* the run's line request, or NULL */
} Held;

/* Room for HELD_BATCH solutions of up to ``max_depth`` options; 0 when out of memory. */
static int held_init(Held *held, int max_depth) {
    held->cap = (size_t)HELD_BATCH * (max_depth + 1);
    held->ints = calloc(held->cap, sizeof(int));
    held->len = 0;
    held->count = held->out_of_memory = 0;
    held->batch = HELD_BATCH;
    held->handed_at = 0;
    held->lines = NULL;
    return held->ints != NULL;
}

/* Room for ``more`` items of ``size`` bytes after ``*len`` in ``*buffer``; 0 when out of memory. */
static int grown(void **buffer, size_t *cap, size_t len, size_t more, size_t size) {
    if (len + more <= *cap) return 1;
    size_t room = *cap ? *cap : 256;
    while (room < len + more) room *= 2;
    void *bigger = realloc(*buffer, room * size);
    if (bigger == NULL) return 0;
    *buffer = bigger;
    *cap = room;
    return 1;
}

/* Keep one solution: ``options[k]``, or ``numbers[options[k]]`` when ``numbers`` is given.
 * Runs with the GIL released: when the room cannot grow, the next handover fails. */
static void held_add(Held *held, const int *options, int depth, const int *numbers) {
    if (!grown((void **)&held->ints, &held->cap, held->len, (size_t)depth + 1, sizeof(int))) {
        held->out_of_memory = 1;
        return;
    }
    held->ints[held->len++] = depth;
    for (int k = 0; k < depth; k++) held->ints[held->len++] = numbers ? numbers[options[k]] : options[k];
    held->count++;
}

/* Whether the held solutions are due: a full batch, or waiting since ``now - HELD_SECONDS``. */
static int held_due(const Held *held, double now) {
    return held->count >= held->batch || held->out_of_memory ||
           (held->count && now - held->handed_at > HELD_SECONDS);
}

static void lines_free(Lines *l) {
    Py_XDECREF(l->sink); Py_XDECREF(l->text_of);
    free(l->variables); free(l->kept); free(l->images); free(l->head); free(l->tail);
    free(l->text_at); free(l->text_len); free(l->blob); free(l->out); free(l->first_ints); free(l->scratch);
    free(l->seen);
    free(l);
}

/* ``value`` (a sequence of ints) into a new array of ``*n`` ints; NULL with an exception set. */
static int *ints_of(PyObject *value, Py_ssize_t *n, const char *what) {
    PyObject *fast = PySequence_Fast(value, what);
    if (fast == NULL) return NULL;
    *n = PySequence_Fast_GET_SIZE(fast);
    int *ints = malloc(sizeof(int) * (*n ? *n : 1));
    if (ints == NULL) { Py_DECREF(fast); PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t k = 0; k < *n; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, k));
        if (v == -1 && PyErr_Occurred()) { free(ints); Py_DECREF(fast); return NULL; }
        if (v < 0 || v > 0x7fffffff) {
            PyErr_Format(PyExc_ValueError, "%s: %ld is no variable", what, v);
            free(ints); Py_DECREF(fast); return NULL;
        }
        ints[k] = (int)v;
    }
    Py_DECREF(fast);
    return ints;
}

/* A copy of the str attribute ``name`` of ``request``; NULL with an exception set. */
static char *text_attribute(PyObject *request, const char *name, Py_ssize_t *len) {
    PyObject *value = PyObject_GetAttrString(request, name);
    if (value == NULL) return NULL;
    const char *text = PyUnicode_AsUTF8AndSize(value, len);
    char *copy = text ? malloc(*len + 1) : NULL;
    if (text && copy) memcpy(copy, text, *len + 1);
    else if (text) PyErr_NoMemory();
    Py_DECREF(value);
    return copy;
}

/* The line request ``request``, read with the GIL held; NULL with an exception set. */
static Lines *lines_read(PyObject *request) {
    Lines *l = calloc(1, sizeof(Lines));
    if (l == NULL) { PyErr_NoMemory(); return NULL; }
    PyObject *variables = NULL, *kept = NULL, *images = NULL, *firsts = NULL;
    l->sink = PyObject_GetAttrString(request, "sink");
    l->text_of = l->sink ? PyObject_GetAttrString(request, "text_of") : NULL;
    variables = l->text_of ? PyObject_GetAttrString(request, "variables") : NULL;
    kept = variables ? PyObject_GetAttrString(request, "kept") : NULL;
    images = kept ? PyObject_GetAttrString(request, "images") : NULL;
    firsts = images ? PyObject_GetAttrString(request, "firsts") : NULL;
    int ok = firsts != NULL;
    if (ok) ok = (l->firsts = PyLong_AsLongLong(firsts)) != -1 || !PyErr_Occurred();
    if (ok) ok = (l->variables = ints_of(variables, &l->n_variables, "a line request's variables")) != NULL;
    if (ok) ok = (l->head = text_attribute(request, "head", &l->head_len)) != NULL;
    if (ok) ok = (l->tail = text_attribute(request, "tail", &l->tail_len)) != NULL;
    Py_ssize_t most = 0;
    for (Py_ssize_t k = 0; ok && k < l->n_variables; k++) if (l->variables[k] + 1 > most) most = l->variables[k] + 1;
    PyObject *fast = ok ? PySequence_Fast(images, "a line request's images") : NULL;
    ok = fast != NULL;
    if (ok) {
        l->n_images = PySequence_Fast_GET_SIZE(fast);
        for (Py_ssize_t i = 0; ok && i < l->n_images; i++) {
            Py_ssize_t size;
            int *image = ints_of(PySequence_Fast_GET_ITEM(fast, i), &size, "a line request's image");
            ok = image != NULL;
            if (ok && i == 0) {
                l->image_size = size;
                l->images = malloc(sizeof(int) * (size_t)(l->n_images * size + 1));
                if (l->images == NULL) { PyErr_NoMemory(); ok = 0; }
            } else if (ok && size != l->image_size) {
                PyErr_SetString(PyExc_ValueError, "a line request's images differ in length");
                ok = 0;
            }
            if (ok) memcpy(l->images + i * size, image, sizeof(int) * size);
            for (Py_ssize_t k = 0; ok && k < size; k++) if (image[k] + 1 > most) most = image[k] + 1;
            free(image);
        }
        if (ok && l->n_images && most > l->image_size) {
            PyErr_SetString(PyExc_ValueError, "a line request's images do not cover its variables");
            ok = 0;
        }
    }
    Py_XDECREF(fast);
    if (ok) {
        l->n_texts = most;
        l->text_at = malloc(sizeof(long long) * (most ? most : 1));
        l->text_len = malloc(sizeof(int) * (most ? most : 1));
        l->seen_words = most / 64 + 1;
        l->seen = calloc(l->seen_words, sizeof(unsigned long long));
        if (l->text_at == NULL || l->text_len == NULL || l->seen == NULL) { PyErr_NoMemory(); ok = 0; }
        for (Py_ssize_t v = 0; ok && v < most; v++) l->text_at[v] = TEXT_UNKNOWN;
    }
    if (ok && kept != Py_None) {
        Py_ssize_t n;
        int *listed = ints_of(kept, &n, "a line request's kept variables");
        l->kept = listed ? calloc(most ? most : 1, 1) : NULL;
        if (listed && l->kept == NULL) PyErr_NoMemory();
        ok = l->kept != NULL;
        for (Py_ssize_t k = 0; ok && k < n; k++) if (listed[k] < most) l->kept[listed[k]] = 1;
        free(listed);
    }
    Py_XDECREF(variables); Py_XDECREF(kept); Py_XDECREF(images); Py_XDECREF(firsts);
    if (!ok) { lines_free(l); return NULL; }
    return l;
}

/* Learn the text of model variable ``v`` from ``text_of`` (GIL held): a str, its text
 * on a line ("" for none).  0 on error. */
static int lines_know(Lines *l, int v) {
    if (l->text_at[v] != TEXT_UNKNOWN) return 1;
    PyObject *text = PyObject_CallFunction(l->text_of, "i", v);
    if (text == NULL) return 0;
    Py_ssize_t len;
    const char *bytes = PyUnicode_AsUTF8AndSize(text, &len);
    int ok = bytes != NULL;
    if (ok && !grown((void **)&l->blob, &l->blob_cap, l->blob_len, (size_t)len, 1)) { PyErr_NoMemory(); ok = 0; }
    if (ok) {
        memcpy(l->blob + l->blob_len, bytes, len);
        l->text_at[v] = (long long)l->blob_len;
        l->text_len[v] = (int)len;
        l->blob_len += len;
    }
    Py_DECREF(text);
    return ok;
}

static int compare_ints(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The variables of solution ``options`` (``depth`` of them) under image ``i`` (-1: none),
 * sorted, into ``l->scratch``; returns how many. */
static int lines_solution(Lines *l, const int *options, int depth, Py_ssize_t i) {
    const int *image = i < 0 ? NULL : l->images + i * l->image_size;
    int n = 0;
    for (int k = 0; k < depth; k++) {
        int v = l->variables[options[k]];
        if (l->kept == NULL || l->kept[v]) l->scratch[n++] = image ? image[v] : v;
    }
    if (l->seen_words > 8 * (Py_ssize_t)n + 64) {  /* few variables among many: sort them */
        qsort(l->scratch, n, sizeof(int), compare_ints);
        return n;
    }
    /* Else a bit per variable, read back in order (no comparisons to mispredict). */
    for (int k = 0; k < n; k++) l->seen[l->scratch[k] >> 6] |= 1ULL << (l->scratch[k] & 63);
    int sorted = 0;
    for (Py_ssize_t w = 0; w < l->seen_words && sorted < n; w++) {
        for (unsigned long long bits = l->seen[w]; bits; bits &= bits - 1)
            l->scratch[sorted++] = (int)(64 * w + __builtin_ctzll(bits));
        l->seen[w] = 0;
    }
    return n;
}

/* The held solutions' lines, one per solution and image, after those in ``l->out`` not
 * handed on yet, and the variables of the first ``l->firsts`` into ``l->first_ints``;
 * runs without the GIL.  Returns the lines now waiting, or -1 when out of memory. */
static long long lines_make(Held *held, Lines *l) {
    long long made = l->made;
    Py_ssize_t images = l->n_images ? l->n_images : 1;
    for (size_t at = 0; at < held->len;) {
        int depth = held->ints[at++];
        for (Py_ssize_t i = 0; i < images; i++) {
            int n = lines_solution(l, held->ints + at, depth, l->n_images ? i : -1);
            if (made < l->firsts) {
                if (!grown((void **)&l->first_ints, &l->first_cap, l->first_len, (size_t)n + 1, sizeof(int))) return -1;
                l->first_ints[l->first_len++] = n;
                memcpy(l->first_ints + l->first_len, l->scratch, sizeof(int) * n);
                l->first_len += n;
            }
            size_t room = l->head_len + l->tail_len + n;
            for (int k = 0; k < n; k++) room += l->text_len[l->scratch[k]];
            if (!grown((void **)&l->out, &l->out_cap, l->out_len, room, 1)) return -1;
            char *write = l->out + l->out_len;
            memcpy(write, l->head, l->head_len); write += l->head_len;
            int joined = 0;
            for (int k = 0; k < n; k++) {
                int v = l->scratch[k], len = l->text_len[v];
                if (len == 0) continue;
                if (joined++) *write++ = ',';
                memcpy(write, l->blob + l->text_at[v], len); write += len;
            }
            memcpy(write, l->tail, l->tail_len); write += l->tail_len;
            l->out_len = write - l->out;
            l->made = ++made;
        }
        at += depth;
    }
    return made;
}

/* Know every text a line needs for model variable ``v`` of a solution: its own, or its
 * images' (none when ``v`` is not kept).  GIL held; 0 with the exception set. */
static int lines_know_variable(Lines *l, int v) {
    if (l->kept != NULL && !l->kept[v]) return 1;
    if (l->n_images == 0) return lines_know(l, v);
    for (Py_ssize_t i = 0; i < l->n_images; i++)
        if (!lines_know(l, l->images[i * l->image_size + v])) return 0;
    return 1;
}

/* Room to sort the variables of a solution of ``most`` options; 0 with the exception set. */
static int lines_room(Lines *l, int most) {
    if (most <= l->scratch_cap) return 1;
    free(l->scratch);
    l->scratch = malloc(sizeof(int) * most);
    if (l->scratch == NULL) { l->scratch_cap = 0; PyErr_NoMemory(); return 0; }
    l->scratch_cap = most;
    return 1;
}

/* Know every text the held solutions' lines need, and room to sort them (GIL held).
 * Returns 0 with the exception set. */
static int lines_ready(Held *held, Lines *l) {
    int most = 0;
    for (size_t at = 0; at < held->len;) {
        int depth = held->ints[at++];
        if (depth > most) most = depth;
        for (int k = 0; k < depth; k++) {
            int option = held->ints[at + k];
            if (option >= l->n_variables) {
                PyErr_Format(PyExc_ValueError, "a line request names no variable for option %d", option);
                return 0;
            }
            if (!lines_know_variable(l, l->variables[option])) return 0;
        }
        at += depth;
    }
    return lines_room(l, most);
}

/* Hand on the lines ``lines_make`` made, with the variables of at most ``cap`` of the
 * first: ``sink(text, lines, firsts)`` (GIL held); they are gone either way.  Returns 0
 * with the exception set. */
static int lines_give(Lines *l, long long cap) {
    long long made = l->made, wanted = made < l->firsts ? made : l->firsts;
    if (wanted > cap) wanted = cap > 0 ? cap : 0;
    PyObject *firsts = PyList_New(wanted), *answer = NULL;
    size_t at = 0;
    for (long long f = 0; firsts != NULL && f < wanted; f++) {
        int n = l->first_ints[at++];
        PyObject *ones = PyList_New(n);
        for (int k = 0; ones != NULL && k < n; k++) {
            PyObject *value = PyLong_FromLong(l->first_ints[at + k]);
            if (value == NULL) Py_CLEAR(ones); else PyList_SET_ITEM(ones, k, value);
        }
        if (ones == NULL) Py_CLEAR(firsts); else PyList_SET_ITEM(firsts, f, ones);
        at += n;
    }
    if (firsts != NULL) {
        l->firsts -= wanted;
        PyObject *text = PyBytes_FromStringAndSize(l->out, (Py_ssize_t)l->out_len);
        answer = text ? PyObject_CallFunction(l->sink, "OLO", text, made, firsts) : NULL;
        Py_XDECREF(text);
        Py_DECREF(firsts);
    }
    Py_XDECREF(answer);
    l->made = 0;
    l->out_len = l->first_len = 0;
    return answer != NULL;
}

/* Hand the held solutions on as lines (GIL held at entry and exit, released while the
 * lines are made).  Returns 0 with the exception set. */
static int lines_hand_over(Held *held, Lines *l) {
    if (!lines_ready(held, l)) return 0;
    long long made;
    Py_BEGIN_ALLOW_THREADS
    made = lines_make(held, l);
    Py_END_ALLOW_THREADS
    if (made < 0) { PyErr_NoMemory(); return 0; }
    return lines_give(l, l->firsts);
}

/* The held batch is handed on (or dropped): empty it. */
static void held_emptied(Held *held, double now) {
    held->len = 0;
    held->count = held->out_of_memory = 0;
    held->handed_at = now;
}

/* Call ``callback`` on each held solution (a list of ints), or hand them on as lines,
 * with the GIL held; returns 0 with the exception set when that fails.  Empties the
 * batch either way. */
static int held_hand_over(Held *held, PyObject *callback, double now) {
    int ok = 1;
    if (held->out_of_memory) {
        PyErr_NoMemory();
        ok = 0;
    } else if (held->lines != NULL) {
        ok = lines_hand_over(held, held->lines);
    }
    for (size_t at = 0; ok && held->lines == NULL && at < held->len;) {
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
    held_emptied(held, now);
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

/* Start a run whose ``callback`` is None, a callable or a line request (GIL held);
 * returns 0 with the exception set when the request cannot be read. */
static int held_begin(Held *held, PyObject *callback, double now) {
    held->len = 0;
    held->count = held->out_of_memory = 0;
    held->handed_at = now;
    held->lines = NULL;
    held->batch = HELD_BATCH;
    if (callback == Py_None || PyCallable_Check(callback)) return 1;
    held->lines = lines_read(callback);
    held->batch = LINES_BATCH;
    return held->lines != NULL;
}

/* End a run: hand over what is still held (unless ``failed``); returns 0 with the
 * exception set when that fails. */
static int held_end(Held *held, PyObject *callback, double now, int failed) {
    int ok = failed || !held->count || held_hand_over(held, callback, now);
    if (held->lines != NULL) lines_free(held->lines);
    held->lines = NULL;
    return ok;
}

static void held_free(Held *held) {
    if (held->lines != NULL) lines_free(held->lines);
    free(held->ints);
}

#endif
