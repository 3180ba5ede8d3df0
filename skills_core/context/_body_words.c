/* Skills' body words in C: each body cut and counted, and which skills hold each word.
 *
 * The pure-Python twin and the contract both follow are in _words.py: a body is cut as
 * _words.body_tokens cuts it. Its words of ASCII letters and digits are lowercased here; the
 * others (any word holding a byte past ASCII) are normalised by _words.normal_text, all in one
 * call, and cut here by the classes _words.CLASSES gives their characters; the cutting and
 * counting run without the GIL. Every distinct token is stored once, as UTF-8 in an arena,
 * under a numeric id. A body's counts are arrays of ids and counts, in the
 * order the words first occur; each word's postings list the skills holding it, in the order
 * they were added, so a removal finds its entry by binary search. No Python object is made per
 * token or per (skill, word) pair: that is what makes indexing 10,000 real-sized skills cheap.
 * Every change to a Postings is made holding the GIL, so each call is atomic for Python threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Words are hashed and compared 8 bytes at a time, read as little-endian numbers (chunk_at). */
#if !defined(__BYTE_ORDER__) || \
    (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ && __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__)
#error "_body_words needs GCC or Clang's __BYTE_ORDER__ (the pure-Python twin runs without it)"
#endif

static unsigned char WORD_BYTE[256]; /* a letter or digit's lowercase form; 0: a separator */
static uint64_t SEED[3];             /* random per process: crafted words cannot collide */
#define PREFETCH 8 /* how many words ahead table slots and postings are fetched */

static inline uint64_t mix(uint64_t a, uint64_t b) {
    __uint128_t product = (__uint128_t)a * b;
    return (uint64_t)product ^ (uint64_t)(product >> 64);
}

/* The 8 bytes at ``word``, of which only the first ``left`` (when under 8) are the word's.
 * Every buffer words are read from has 8 bytes to spare after its last word. */
static inline uint64_t chunk_at(const unsigned char *word, size_t left) {
    uint64_t chunk;
    memcpy(&chunk, word, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    chunk = __builtin_bswap64(chunk); /* the word's first byte in the low bits, as below */
#endif
    return left >= 8 ? chunk : chunk & ((UINT64_C(1) << (8 * left)) - 1);
}

static inline uint64_t hash_word(const unsigned char *word, size_t length) {
    uint64_t hash = SEED[0];
    for (size_t at = 0; at < length; at += 8)
        hash = mix(hash ^ SEED[1], chunk_at(word + at, length - at) ^ SEED[2]);
    return mix(hash ^ length ^ SEED[2], SEED[1]);
}

static inline int same_word(const unsigned char *one, const unsigned char *other, size_t length) {
    for (size_t at = 0; at < length; at += 8)
        if (chunk_at(one + at, length - at) != chunk_at(other + at, length - at)) return 0;
    return 1;
}

/* ---- WordCounts: one body's distinct words and their counts --------------------------- */

typedef struct {
    PyObject_HEAD
    uint64_t owner;   /* the serial of the Postings whose vocabulary the ids belong to */
    uint32_t *ids;    /* distinct word ids, in order of first occurrence */
    uint32_t *counts; /* how often each occurs */
    Py_ssize_t distinct;
    Py_ssize_t length; /* tokens in all */
} WordCounts;

static void WordCounts_dealloc(WordCounts *self) {
    PyMem_Free(self->ids);
    PyMem_RawFree(self->counts); /* counted without the GIL: see Postings_count */
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t WordCounts_len(WordCounts *self) { return self->distinct; }

static PyObject *WordCounts_get_length(WordCounts *self, void *Py_UNUSED(closure)) {
    return PyLong_FromSsize_t(self->length);
}

static PyGetSetDef WordCounts_getset[] = {
    {"length", (getter)WordCounts_get_length, NULL, "How many words the body holds.", NULL},
    {NULL},
};

static PySequenceMethods WordCounts_sequence = {.sq_length = (lenfunc)WordCounts_len};

static PyTypeObject WordCountsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "skills_core.context._body_words.WordCounts",
    .tp_doc = "One body's distinct words and how often each occurs (made by Postings.count).",
    .tp_basicsize = sizeof(WordCounts),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)WordCounts_dealloc,
    .tp_as_sequence = &WordCounts_sequence,
    .tp_getset = WordCounts_getset,
};

/* ---- Postings: a vocabulary, and every added skill's words ------------------------------ */

typedef struct {
    uint32_t skill; /* the skill's serial in this Postings */
    uint32_t count;
} Posting;

typedef struct {
    Posting *items;
    uint32_t size, capacity;
} PostingList;

typedef struct {
    uint64_t hash;
    uint64_t head; /* the word's first 8 bytes: words of up to 8 are told apart without the arena */
    uint32_t id;   /* the word's id + 1; 0: an empty slot */
    uint32_t length;
} VocabSlot;

typedef struct {
    PyObject *name;     /* NULL once removed */
    WordCounts *counts; /* the words posted under the name */
    double length;      /* counts->length, at hand for length normalisation */
} SkillSlot;

typedef struct {
    PyObject_HEAD
    uint64_t serial;
    /* vocabulary: word id -> bytes, and an open addressing table from a word to its id */
    VocabSlot *table;
    size_t table_capacity;
    uint32_t words;
    size_t *word_start;
    uint32_t *word_length;
    PyObject **word_text; /* the word as a str, made the first time it is asked for */
    PostingList *postings;
    size_t words_capacity;
    unsigned char *arena;
    size_t arena_size, arena_capacity;
    /* skills: serial -> name and counts; name -> serial */
    SkillSlot *skill;
    uint32_t skills, skills_capacity;
    PyObject *serials; /* dict name -> int serial */
} Postings;

static uint64_t next_serial = 1;

static int grow(void **array, size_t item, size_t *capacity, size_t needed) {
    if (needed <= *capacity) return 0;
    size_t size = *capacity ? *capacity : 64;
    while (size < needed) size *= 2;
    void *grown = PyMem_Realloc(*array, item * size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *array = grown;
    *capacity = size;
    return 0;
}

static int table_rehash(Postings *self, size_t capacity) {
    VocabSlot *table = PyMem_Calloc(capacity, sizeof(VocabSlot));
    if (table == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t slot = 0; slot < self->table_capacity; slot++) {
        if (self->table[slot].id == 0) continue;
        size_t at = self->table[slot].hash & (capacity - 1);
        while (table[at].id != 0) at = (at + 1) & (capacity - 1);
        table[at] = self->table[slot];
    }
    PyMem_Free(self->table);
    self->table = table;
    self->table_capacity = capacity;
    return 0;
}

/* Where a word is, or would go, in the vocabulary table. */
static VocabSlot *find_slot(Postings *self, const unsigned char *word, size_t length,
                            uint64_t hash) {
    uint64_t head = chunk_at(word, length);
    size_t mask = self->table_capacity - 1;
    for (size_t at = hash & mask;; at = (at + 1) & mask) {
        VocabSlot *slot = &self->table[at];
        if (slot->id == 0) return slot;
        if (slot->hash == hash && slot->length == length && slot->head == head &&
            (length <= 8 ||
             same_word(self->arena + self->word_start[slot->id - 1] + 8, word + 8, length - 8)))
            return slot;
    }
}

/* The id of a word, or -1 when the vocabulary does not hold it. */
static int64_t find_word(Postings *self, const unsigned char *word, size_t length, uint64_t hash) {
    return (int64_t)find_slot(self, word, length, hash)->id - 1;
}

/* The id of a word, added to the vocabulary when new; -1 on an error (set). */
static int64_t word_id(Postings *self, const unsigned char *word, size_t length, uint64_t hash) {
    VocabSlot *slot = find_slot(self, word, length, hash);
    if (slot->id != 0) return slot->id - 1;
    if (self->words == UINT32_MAX - 1) {
        PyErr_SetString(PyExc_OverflowError, "more distinct words than an index holds");
        return -1;
    }
    /* Room first: the table is never more than half full, so a look always ends. */
    if (((size_t)self->words + 1) * 2 > self->table_capacity) {
        if (table_rehash(self, self->table_capacity * 2) < 0) return -1;
        slot = find_slot(self, word, length, hash);
    }
    size_t needed = (size_t)self->words + 1, capacity = self->words_capacity;
    if (grow((void **)&self->word_start, sizeof(size_t), &capacity, needed) < 0) return -1;
    capacity = self->words_capacity;
    if (grow((void **)&self->word_length, sizeof(uint32_t), &capacity, needed) < 0) return -1;
    capacity = self->words_capacity;
    if (grow((void **)&self->word_text, sizeof(PyObject *), &capacity, needed) < 0) return -1;
    capacity = self->words_capacity;
    if (grow((void **)&self->postings, sizeof(PostingList), &capacity, needed) < 0) return -1;
    self->words_capacity = capacity;
    size_t arena_needed = self->arena_size + length + 8; /* 8 to spare: see chunk_at */
    if (grow((void **)&self->arena, 1, &self->arena_capacity, arena_needed) < 0) return -1;
    uint32_t id = self->words++;
    memcpy(self->arena + self->arena_size, word, length);
    memset(self->arena + self->arena_size + length, 0, 8);
    self->word_start[id] = self->arena_size;
    self->word_length[id] = (uint32_t)length;
    self->word_text[id] = NULL;
    self->postings[id] = (PostingList){NULL, 0, 0};
    self->arena_size += length;
    *slot = (VocabSlot){hash, chunk_at(word, length), id + 1, (uint32_t)length};
    return id;
}

/* A borrowed str of word ``id``, made on first use. */
static PyObject *word_text(Postings *self, uint32_t id) {
    if (self->word_text[id] == NULL) {
        uint32_t length = self->word_length[id];
        const char *word = (const char *)self->arena + self->word_start[id];
        PyObject *text = PyUnicode_DecodeUTF8(word, length, NULL);
        if (text == NULL) return NULL;
        self->word_text[id] = text;
    }
    return self->word_text[id];
}

#define SHORT_WORD 64 /* a word asked for up to this long is copied on the stack */

/* The id of a str word; -1 when not held (or not a str), -2 on an error (set). */
static int64_t id_of_text(Postings *self, PyObject *text) {
    if (!PyUnicode_Check(text)) return -1;
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    if (utf8 == NULL) { /* a lone surrogate: no word holds one */
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -2;
        PyErr_Clear();
        return -1;
    }
    size_t length = (size_t)size;
    unsigned char near[SHORT_WORD + 8] = {0};
    unsigned char *padded = length <= SHORT_WORD ? near : PyMem_Calloc(length + 8, 1);
    if (padded == NULL) {
        PyErr_NoMemory();
        return -2;
    }
    memcpy(padded, utf8, length); /* 8 bytes to spare: see chunk_at */
    int64_t id = find_word(self, padded, length, hash_word(padded, length));
    if (padded != near) PyMem_Free(padded);
    return id;
}

static PyObject *Postings_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "Postings() takes no arguments");
        return NULL;
    }
    Postings *self = (Postings *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->serial = next_serial++;
    self->serials = PyDict_New();
    self->table_capacity = 1 << 12;
    self->table = PyMem_Calloc(self->table_capacity, sizeof(VocabSlot));
    if (self->serials == NULL || self->table == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static void Postings_dealloc(Postings *self) {
    for (uint32_t id = 0; id < self->words; id++) {
        Py_XDECREF(self->word_text[id]);
        PyMem_Free(self->postings[id].items);
    }
    for (uint32_t serial = 0; serial < self->skills; serial++) {
        Py_XDECREF(self->skill[serial].name);
        Py_XDECREF(self->skill[serial].counts);
    }
    Py_XDECREF(self->serials);
    PyMem_Free(self->table);
    PyMem_Free(self->word_start);
    PyMem_Free(self->word_length);
    PyMem_Free(self->word_text);
    PyMem_Free(self->postings);
    PyMem_Free(self->arena);
    PyMem_Free(self->skill);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ---- Cutting a body into words ------------------------------------------------------- */

/* Character classes of _words.CLASSES (0: not met yet; every character of a normal_text
 * result is met). */
enum { SEPARATOR = 1, LETTER = 2, MARK = 3, SPACELESS_LETTER = 4 };
static PyObject *normal_text;       /* _words.normal_text, taken on first use */
static Py_buffer classes_view;      /* _words.CLASSES, held from first use on */
static const unsigned char *CLASSES;

/* Take the Python half of the rule from _words.py; -1 on an error (set). */
static int load_rule(void) {
    if (normal_text != NULL) return 0;
    PyObject *words = PyImport_ImportModule("skills_core.context._words");
    if (words == NULL) return -1;
    PyObject *normal = PyObject_GetAttrString(words, "normal_text");
    PyObject *table = PyObject_GetAttrString(words, "CLASSES");
    Py_DECREF(words);
    int failed = normal == NULL || table == NULL ||
                 PyObject_GetBuffer(table, &classes_view, PyBUF_SIMPLE) < 0;
    Py_XDECREF(table); /* the view holds it */
    if (!failed && classes_view.len <= 0x10FFFF) {
        PyBuffer_Release(&classes_view);
        PyErr_SetString(PyExc_ValueError, "_words.CLASSES must class every code point");
        failed = 1;
    }
    if (failed) {
        Py_XDECREF(normal);
        return -1;
    }
    CLASSES = classes_view.buf;
    normal_text = normal;
    return 0;
}

static unsigned char BYTE_KIND[256]; /* 0: an ASCII separator; 1: an ASCII letter or digit;
                                      * 2: a byte past ASCII (part of a wide word) */

/* Normalised text being cut: _words.normal_text of the body's wide words, joined by '\n'. */
typedef struct {
    int kind;
    const void *data;
    size_t at, length;
} Normal;

static inline int class_at(const Normal *text, size_t at, size_t end) {
    return at < end ? CLASSES[PyUnicode_READ(text->kind, text->data, at)] : SEPARATOR;
}

/* Write characters [from, to) of text to out as UTF-8, then a 0; where out ends now. */
static size_t put_word(unsigned char *out, size_t end, const Normal *text, size_t from,
                       size_t to) {
    for (size_t at = from; at < to; at++) {
        Py_UCS4 code = PyUnicode_READ(text->kind, text->data, at);
        if (code < 0x80) {
            out[end++] = (unsigned char)code;
        } else if (code < 0x800) {
            out[end++] = (unsigned char)(0xC0 | code >> 6);
            out[end++] = (unsigned char)(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out[end++] = (unsigned char)(0xE0 | code >> 12);
            out[end++] = (unsigned char)(0x80 | (code >> 6 & 0x3F));
            out[end++] = (unsigned char)(0x80 | (code & 0x3F));
        } else {
            out[end++] = (unsigned char)(0xF0 | code >> 18);
            out[end++] = (unsigned char)(0x80 | (code >> 12 & 0x3F));
            out[end++] = (unsigned char)(0x80 | (code >> 6 & 0x3F));
            out[end++] = (unsigned char)(0x80 | (code & 0x3F));
        }
    }
    out[end++] = 0;
    return end;
}

/* Cut the next wide word's normal text (up to its '\n') as _words._cut does; where out ends. */
static size_t cut_normal(unsigned char *out, size_t end, Normal *text) {
    size_t stop = text->at;
    while (stop < text->length && PyUnicode_READ(text->kind, text->data, stop) != '\n') stop++;
    for (size_t at = text->at; at < stop;) {
        int kind = class_at(text, at, stop);
        size_t start = at++;
        if (kind == LETTER) {
            while (class_at(text, at, stop) == LETTER || class_at(text, at, stop) == MARK) at++;
            end = put_word(out, end, text, start, at);
        } else if (kind == SPACELESS_LETTER) {
            while (class_at(text, at, stop) == MARK) at++;
            if (class_at(text, at, stop) != SPACELESS_LETTER)
                end = put_word(out, end, text, start, at); /* a lone letter */
            while (class_at(text, at, stop) == SPACELESS_LETTER) {
                size_t unit = at++;
                while (class_at(text, at, stop) == MARK) at++;
                end = put_word(out, end, text, start, at); /* the previous letter and this */
                start = unit;
            }
        }
    }
    text->at = stop + 1;
    return end;
}

/* Where the body's wide words (those holding a byte past ASCII) are, and their normal text. */
typedef struct {
    size_t *spans; /* start and end of each wide word, in order */
    size_t count;
    PyObject *normal; /* their normal text, a str */
    Normal text;
} Wide;

/* Every token of the body, each followed by one 0 or more (no GIL needed): ASCII bytes
 * lowered or made separators, wide words cut from their normal text; where out ends. */
static size_t cut_body(unsigned char *out, const unsigned char *bytes, size_t size,
                       Wide *wide) {
    size_t end = 0, at = 0;
    for (size_t word = 0; word <= wide->count; word++) {
        size_t stop = word < wide->count ? wide->spans[2 * word] : size;
        for (; at < stop; at++) out[end++] = WORD_BYTE[bytes[at]];
        out[end++] = 0;
        if (word == wide->count) break;
        end = cut_normal(out, end, &wide->text);
        at = wide->spans[2 * word + 1];
    }
    return end;
}

/* Find the body's wide words and normalise them with _words.normal_text, joined by '\n' (no
 * character normalises to one: checked over every code point), so that the '\n's part their
 * normal texts; -1 on an error (set). */
static int find_wide(Wide *wide, const unsigned char *bytes, size_t size) {
    if (load_rule() < 0) return -1;
    size_t capacity = 0, joined = 0;
    unsigned char *words = PyMem_RawMalloc(size + size / 2 + 2); /* a '\n' per 2 bytes at most */
    if (words == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t at = 0; at < size;) {
        if (BYTE_KIND[bytes[at]] == 0) {
            at++;
            continue;
        }
        size_t start = at;
        unsigned char kinds = 0;
        for (; at < size && BYTE_KIND[bytes[at]] != 0; at++) kinds |= BYTE_KIND[bytes[at]];
        if (!(kinds & 2)) continue;
        if (grow((void **)&wide->spans, 2 * sizeof(size_t), &capacity, wide->count + 1) < 0)
            goto failed;
        wide->spans[2 * wide->count] = start;
        wide->spans[2 * wide->count++ + 1] = at;
        memcpy(words + joined, bytes + start, at - start);
        joined += at - start;
        words[joined++] = '\n';
    }
    PyObject *joined_words = PyBytes_FromStringAndSize((const char *)words, (Py_ssize_t)joined);
    PyObject *normal = joined_words ? PyObject_CallOneArg(normal_text, joined_words) : NULL;
    Py_XDECREF(joined_words);
    PyMem_RawFree(words);
    words = NULL;
    if (normal != NULL && !PyUnicode_Check(normal)) {
        Py_CLEAR(normal);
        PyErr_SetString(PyExc_TypeError, "_words.normal_text must return a str");
    }
    if (normal == NULL) goto failed;
    wide->normal = normal;
    wide->text = (Normal){PyUnicode_KIND(normal), PyUnicode_DATA(normal), 0,
                          (size_t)PyUnicode_GET_LENGTH(normal)};
    return 0;
failed:
    PyMem_RawFree(words);
    return -1;
}

/* A body's distinct words while it is counted: an open addressing table over its tokens. Its
 * memory comes from PyMem_Raw*, which needs no GIL. */
typedef struct {
    uint64_t hash;
    const unsigned char *word;
    uint32_t length;
    uint32_t order; /* the word's place among the body's distinct words + 1; 0: an empty slot */
} Seen;

typedef struct {
    Seen *slots;
    size_t capacity;
    uint32_t *counts; /* by order of first occurrence */
    size_t distinct;
} BodyWords;

/* Double the table; -1 without memory (no error set: the GIL may not be held). */
static int body_words_grow(BodyWords *words) {
    size_t capacity = words->capacity * 2;
    Seen *slots = PyMem_RawCalloc(capacity, sizeof(Seen));
    uint32_t *counts = PyMem_RawRealloc(words->counts, sizeof(uint32_t) * (capacity / 2 + 1));
    if (counts != NULL) words->counts = counts;
    if (slots == NULL || counts == NULL) {
        PyMem_RawFree(slots);
        return -1;
    }
    for (size_t slot = 0; slot < words->capacity; slot++) {
        if (words->slots[slot].order == 0) continue;
        size_t at = words->slots[slot].hash & (capacity - 1);
        while (slots[at].order != 0) at = (at + 1) & (capacity - 1);
        slots[at] = words->slots[slot];
    }
    PyMem_RawFree(words->slots);
    words->slots = slots;
    words->capacity = capacity;
    return 0;
}

/* Count one token of the body; -1 without memory (no error set). */
static inline int body_words_add(BodyWords *words, const unsigned char *word, size_t length) {
    uint64_t hash = hash_word(word, length);
    size_t mask = words->capacity - 1;
    for (size_t at = hash & mask;; at = (at + 1) & mask) {
        Seen *slot = &words->slots[at];
        if (slot->order == 0) {
            *slot = (Seen){hash, word, (uint32_t)length, (uint32_t)++words->distinct};
            words->counts[words->distinct - 1] = 1;
            return words->distinct * 2 > words->capacity ? body_words_grow(words) : 0;
        }
        if (slot->hash == hash && slot->length == length && same_word(slot->word, word, length)) {
            words->counts[slot->order - 1]++;
            return 0;
        }
    }
}

/* Cut the body into out and count its tokens into words (no GIL needed); how many tokens, or
 * -1 without memory (no error set). */
static Py_ssize_t count_body(BodyWords *words, unsigned char *out, const unsigned char *bytes,
                             size_t size, Wide *wide) {
    size_t end = cut_body(out, bytes, size, wide);
    memset(out + end, 0, 8); /* 8 to spare: see chunk_at */
    Py_ssize_t length = 0;
    for (size_t at = 0; at < end; at++) {
        if (out[at] == 0) continue;
        size_t start = at;
        while (out[at] != 0) at++;
        if (body_words_add(words, out + start, at - start) < 0) return -1;
        length++;
    }
    return length;
}

static PyObject *Postings_count(Postings *self, PyObject *data) {
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *bytes = view.buf;
    size_t size = (size_t)view.len;
    int ascii = 1;
    for (size_t at = 0; at < size; at++) ascii &= bytes[at] < 0x80;
    Wide wide = {NULL, 0, NULL, {PyUnicode_1BYTE_KIND, "", 0, 0}};
    int failed = !ascii && find_wide(&wide, bytes, size) < 0;
    /* Each character of the normal text is in at most two words (bigrams), in 4 bytes each;
     * a 0 after each stretch of ASCII between them. */
    unsigned char *out = PyMem_RawMalloc(size + 9 * wide.text.length + wide.count + 16);
    size_t capacity = 256; /* room for a word in 16 bytes of body: few bodies need more */
    while (capacity < size / 8 && capacity < (1 << 16)) capacity *= 2;
    BodyWords words = {PyMem_RawCalloc(capacity, sizeof(Seen)), capacity,
                       PyMem_RawMalloc(sizeof(uint32_t) * (capacity / 2 + 1)), 0};
    uint32_t *ids = NULL;
    WordCounts *result = NULL;
    Py_ssize_t length = -1;
    if (failed) goto done;
    if (out != NULL && words.slots != NULL && words.counts != NULL) {
        Py_BEGIN_ALLOW_THREADS
        length = count_body(&words, out, bytes, size, &wide);
        Py_END_ALLOW_THREADS
    }
    if (length < 0) {
        PyErr_NoMemory();
        goto done;
    }
    ids = PyMem_Malloc(sizeof(uint32_t) * (words.distinct + 1));
    if (ids == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* The vocabulary's table is large and each look is a cache miss: list the body's words
     * first, then look each up while the CPU fetches the slot of one a few places ahead. */
    size_t listed = 0;
    for (size_t slot = 0; slot < words.capacity; slot++)
        if (words.slots[slot].order != 0) words.slots[listed++] = words.slots[slot];
    for (size_t at = 0; at < listed; at++) {
        if (at + PREFETCH < listed)
            __builtin_prefetch(&self->table[words.slots[at + PREFETCH].hash &
                                             (self->table_capacity - 1)]);
        Seen *seen = &words.slots[at];
        int64_t id = word_id(self, seen->word, seen->length, seen->hash);
        if (id < 0) goto done;
        ids[seen->order - 1] = (uint32_t)id;
    }
    result = PyObject_New(WordCounts, &WordCountsType);
    if (result == NULL) goto done;
    result->owner = self->serial;
    result->ids = ids;
    result->counts = PyMem_RawRealloc(words.counts, sizeof(uint32_t) * (words.distinct + 1));
    if (result->counts == NULL) result->counts = words.counts; /* not shrunk: keep it */
    result->distinct = (Py_ssize_t)words.distinct;
    result->length = length;
    ids = NULL;
    words.counts = NULL;
done:
    Py_XDECREF(wide.normal);
    PyMem_Free(wide.spans);
    PyMem_RawFree(out);
    PyMem_RawFree(words.slots);
    PyMem_RawFree(words.counts);
    PyMem_Free(ids);
    PyBuffer_Release(&view);
    return (PyObject *)result;
}

static WordCounts *own_counts(Postings *self, PyObject *counts) {
    if (!PyObject_TypeCheck(counts, &WordCountsType)) {
        PyErr_SetString(PyExc_TypeError, "expected WordCounts");
        return NULL;
    }
    if (((WordCounts *)counts)->owner != self->serial) {
        PyErr_SetString(PyExc_ValueError, "these counts were made by another Postings");
        return NULL;
    }
    return (WordCounts *)counts;
}

/* The counts of a (name, counts) item that add may post; NULL on an error (set). */
static WordCounts *addable(Postings *self, PyObject *item) {
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
        PyErr_SetString(PyExc_TypeError, "skills must map names to counts");
        return NULL;
    }
    PyObject *name = PyTuple_GET_ITEM(item, 0);
    if (!PyUnicode_CheckExact(name)) {
        PyErr_SetString(PyExc_TypeError, "a skill's name must be a str");
        return NULL;
    }
    WordCounts *counts = own_counts(self, PyTuple_GET_ITEM(item, 1));
    if (counts == NULL) return NULL;
    int held = PyDict_Contains(self->serials, name);
    if (held != 0) {
        if (held > 0) PyErr_Format(PyExc_KeyError, "%R is held already", name);
        return NULL;
    }
    return counts;
}

/* Post the words of one (name, counts) item addable checked; -1 on an error (set), with
 * nothing posted. */
static int add_skill(Postings *self, PyObject *item) {
    PyObject *name = PyTuple_GET_ITEM(item, 0);
    WordCounts *counts = (WordCounts *)PyTuple_GET_ITEM(item, 1);
    if (self->skills == UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "more skills added than an index counts");
        return -1;
    }
    size_t capacity = self->skills_capacity;
    if (grow((void **)&self->skill, sizeof(SkillSlot), &capacity, (size_t)self->skills + 1) < 0)
        return -1;
    self->skills_capacity = (uint32_t)capacity;
    for (Py_ssize_t at = 0; at < counts->distinct; at++) { /* room first: all or nothing */
        if (at + PREFETCH < counts->distinct)
            __builtin_prefetch(&self->postings[counts->ids[at + PREFETCH]]);
        PostingList *list = &self->postings[counts->ids[at]];
        size_t room = list->capacity;
        if (grow((void **)&list->items, sizeof(Posting), &room, (size_t)list->size + 1) < 0)
            return -1;
        list->capacity = (uint32_t)room;
    }
    PyObject *serial = PyLong_FromUnsignedLong(self->skills);
    if (serial == NULL || PyDict_SetItem(self->serials, name, serial) < 0) {
        Py_XDECREF(serial);
        return -1;
    }
    Py_DECREF(serial);
    for (Py_ssize_t at = 0; at < counts->distinct; at++) {
        if (at + PREFETCH < counts->distinct) {
            PostingList *ahead = &self->postings[counts->ids[at + PREFETCH]];
            __builtin_prefetch(ahead->items + ahead->size, 1);
        }
        PostingList *list = &self->postings[counts->ids[at]];
        list->items[list->size++] = (Posting){self->skills, counts->counts[at]};
    }
    Py_INCREF(name);
    Py_INCREF(counts);
    self->skill[self->skills] = (SkillSlot){name, counts, (double)counts->length};
    self->skills++;
    return 0;
}

/* 0 when name is new to names, and adds it; -1 on an error (set): KeyError when named twice. */
static int named_once(PyObject *names, PyObject *name) {
    int named = PySet_Contains(names, name);
    if (named > 0) PyErr_Format(PyExc_KeyError, "%R is named twice", name);
    return named != 0 ? -1 : PySet_Add(names, name);
}

static PyObject *Postings_add(Postings *self, PyObject *skills) {
    PyObject *items = PyMapping_Items(skills);
    if (items == NULL) return NULL;
    PyObject *names = PySet_New(NULL);
    int failed = names == NULL;
    for (Py_ssize_t at = 0; !failed && at < PyList_GET_SIZE(items); at++) { /* a misuse posts none */
        PyObject *item = PyList_GET_ITEM(items, at);
        failed = addable(self, item) == NULL || named_once(names, PyTuple_GET_ITEM(item, 0)) < 0;
    }
    for (Py_ssize_t at = 0; !failed && at < PyList_GET_SIZE(items); at++)
        failed = add_skill(self, PyList_GET_ITEM(items, at)) < 0;
    Py_XDECREF(names);
    Py_DECREF(items);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

#define SPARE_SERIALS 64 /* removed skills' serials kept at most, beyond as many as are posted */

/* Number the posted skills 0, 1, ... again, in their order, once removed skills' serials
 * outnumber theirs: memory then follows the skills posted, not every skill ever added. The
 * lists keep their order, as the numbers do. Best effort: without memory, nothing changes. */
static void compact(Postings *self) {
    if (self->skills <= 2 * (size_t)PyDict_GET_SIZE(self->serials) + SPARE_SERIALS) return;
    PyObject *serials = PyDict_New(); /* may collect garbage: made before anything is read */
    uint32_t *renumber = PyMem_Malloc(sizeof(uint32_t) * ((size_t)self->skills + 1));
    uint32_t next = 0;
    if (serials == NULL || renumber == NULL) goto failed;
    for (uint32_t serial = 0; serial < self->skills; serial++) {
        if (self->skill[serial].name == NULL) continue;
        PyObject *number = PyLong_FromUnsignedLong(next);
        int set = number == NULL ? -1 : PyDict_SetItem(serials, self->skill[serial].name, number);
        Py_XDECREF(number);
        if (set < 0) goto failed;
        renumber[serial] = next++;
    }
    for (uint32_t id = 0; id < self->words; id++) {
        PostingList *list = &self->postings[id];
        for (uint32_t at = 0; at < list->size; at++)
            list->items[at].skill = renumber[list->items[at].skill];
    }
    for (uint32_t serial = 0; serial < self->skills; serial++)
        if (self->skill[serial].name != NULL) self->skill[renumber[serial]] = self->skill[serial];
    self->skills = next;
    Py_SETREF(self->serials, serials);
    PyMem_Free(renumber);
    return;
failed:
    PyErr_Clear(); /* no memory for it: the serials stay as they are */
    Py_XDECREF(serials);
    PyMem_Free(renumber);
}

static PyObject *Postings_remove(Postings *self, PyObject *name) {
    if (!PyUnicode_CheckExact(name)) { /* a str's hash runs no Python code meanwhile */
        PyErr_SetString(PyExc_TypeError, "a skill's name must be a str");
        return NULL;
    }
    PyObject *serial_object = PyDict_GetItemWithError(self->serials, name);
    if (serial_object == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, name);
        return NULL;
    }
    uint32_t serial = (uint32_t)PyLong_AsUnsignedLong(serial_object);
    WordCounts *counts = self->skill[serial].counts;
    for (Py_ssize_t at = 0; at < counts->distinct; at++) {
        PostingList *list = &self->postings[counts->ids[at]];
        uint32_t low = 0, high = list->size; /* serials ascend along a list */
        while (low < high) {
            uint32_t middle = low + (high - low) / 2;
            if (list->items[middle].skill < serial)
                low = middle + 1;
            else
                high = middle;
        }
        if (low < list->size && list->items[low].skill == serial) {
            memmove(list->items + low, list->items + low + 1,
                    sizeof(Posting) * (list->size - low - 1));
            list->size--;
        }
    }
    if (PyDict_DelItem(self->serials, name) < 0) return NULL;
    Py_CLEAR(self->skill[serial].name);
    Py_CLEAR(self->skill[serial].counts);
    compact(self);
    Py_RETURN_NONE;
}

static PyObject *Postings_held(Postings *self, PyObject *words) {
    PyObject *iterator = PyObject_GetIter(words);
    if (iterator == NULL) return NULL;
    PyObject *held = PyList_New(0), *word;
    while (held != NULL && (word = PyIter_Next(iterator)) != NULL) {
        int64_t id = id_of_text(self, word);
        if (id == -2 || (id >= 0 && self->postings[id].size > 0 && PyList_Append(held, word) < 0))
            Py_CLEAR(held);
        Py_DECREF(word);
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred()) Py_CLEAR(held);
    return held;
}

/* Add ``extra``'s {name: count} to the sums; -1 on an error (set). */
static int add_extra(Postings *self, PyObject *extra, double *sums, unsigned char *seen,
                     uint32_t *met, size_t *count) {
    Py_ssize_t position = 0;
    PyObject *name, *value;
    while (PyDict_Next(extra, &position, &name, &value)) {
        if (!PyUnicode_CheckExact(name) || !(PyFloat_Check(value) || PyLong_Check(value))) {
            PyErr_SetString(PyExc_TypeError, "extra must map str names to numbers");
            return -1;
        }
        PyObject *serial_object = PyDict_GetItemWithError(self->serials, name);
        if (serial_object == NULL) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_KeyError, "%R is not posted", name);
            return -1;
        }
        uint32_t skill = (uint32_t)PyLong_AsUnsignedLong(serial_object);
        double number = PyFloat_Check(value) ? PyFloat_AS_DOUBLE(value) : PyLong_AsDouble(value);
        if (number == -1.0 && PyErr_Occurred()) return -1;
        sums[skill] += number;
        if (!seen[skill]) {
            seen[skill] = 1;
            met[(*count)++] = skill;
        }
    }
    return 0;
}

static PyObject *Postings_counts(Postings *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"", "b", "average", "extra", "k1", NULL};
    PyObject *words, *extra = NULL;
    double b = 0.0, average = 0.0, k1 = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|dd$Od:counts", keywords, &words, &b,
                                     &average, &extra, &k1))
        return NULL;
    if (extra == Py_None) extra = NULL;
    if (extra != NULL && !PyDict_Check(extra)) {
        PyErr_SetString(PyExc_TypeError, "extra must be a dict or None");
        return NULL;
    }
    /* The words are listed and the result made first (a new dict may start the garbage
     * collector, and a finalizer run any code): from here on no Python code runs, so no skill
     * is added or removed while the sums below, one per skill, are made. */
    PyObject *listed = PySequence_Fast(words, "words must be iterable");
    if (listed == NULL) return NULL;
    PyObject *found = PyDict_New();
    double *sums = PyMem_Calloc((size_t)self->skills + 1, sizeof(double));
    uint32_t *met = PyMem_Malloc(sizeof(uint32_t) * ((size_t)self->skills + 1));
    unsigned char *seen = PyMem_Calloc((size_t)self->skills + 1, 1);
    size_t count = 0;
    if (found == NULL || sums == NULL || met == NULL || seen == NULL) {
        if (found != NULL) PyErr_NoMemory();
        goto failed;
    }
    for (Py_ssize_t word = 0; word < PySequence_Fast_GET_SIZE(listed); word++) {
        int64_t id = id_of_text(self, PySequence_Fast_GET_ITEM(listed, word));
        if (id == -2) goto failed;
        if (id < 0) continue;
        PostingList *list = &self->postings[id];
        for (uint32_t at = 0; at < list->size; at++) {
            uint32_t skill = list->items[at].skill;
            double weight = 1.0;
            if (average > 0.0)
                weight = 1.0 / (1.0 - b + b * self->skill[skill].length / average);
            sums[skill] += list->items[at].count * weight;
            if (!seen[skill]) {
                seen[skill] = 1;
                met[count++] = skill;
            }
        }
    }
    if (extra != NULL && add_extra(self, extra, sums, seen, met, &count) < 0) goto failed;
    for (size_t at = 0; at < count; at++) {
        double total = sums[met[at]];
        PyObject *sum = PyFloat_FromDouble(k1 > 0.0 ? total / (total + k1) : total);
        int set = sum == NULL ? -1 : PyDict_SetItem(found, self->skill[met[at]].name, sum);
        Py_XDECREF(sum);
        if (set < 0) goto failed;
    }
    goto done;
failed:
    Py_CLEAR(found);
done:
    Py_DECREF(listed);
    PyMem_Free(sums);
    PyMem_Free(met);
    PyMem_Free(seen);
    return found;
}

static PyObject *Postings_word(Postings *self, PyObject *args) {
    PyObject *counts_object;
    Py_ssize_t at;
    if (!PyArg_ParseTuple(args, "On:word", &counts_object, &at)) return NULL;
    WordCounts *counts = own_counts(self, counts_object);
    if (counts == NULL) return NULL;
    if (at < 0 || at >= counts->distinct) {
        PyErr_SetString(PyExc_IndexError, "word index out of range");
        return NULL;
    }
    PyObject *text = word_text(self, counts->ids[at]);
    Py_XINCREF(text);
    return text;
}

static Py_ssize_t Postings_len(Postings *self) { return PyDict_Size(self->serials); }

static PyMethodDef Postings_methods[] = {
    {"count", (PyCFunction)Postings_count, METH_O, "count(data) -> WordCounts of a body's bytes"},
    {"add", (PyCFunction)Postings_add, METH_O, "add({name: counts}): post skills' words"},
    {"remove", (PyCFunction)Postings_remove, METH_O, "remove(name): take a skill's words off"},
    {"held", (PyCFunction)Postings_held, METH_O, "held(words) -> those some skill holds"},
    {"counts", (PyCFunction)(void (*)(void))Postings_counts, METH_VARARGS | METH_KEYWORDS,
     "counts(words, b=0.0, average=0.0, *, extra=None, k1=0.0) -> {skill: weighted count}"},
    {"word", (PyCFunction)Postings_word, METH_VARARGS, "word(counts, i) -> its i-th distinct word"},
    {NULL},
};

static PySequenceMethods Postings_sequence = {.sq_length = (lenfunc)Postings_len};

static PyTypeObject PostingsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "skills_core.context._body_words.Postings",
    .tp_doc = "Skills' body words: a vocabulary, and which skills hold each word.",
    .tp_basicsize = sizeof(Postings),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Postings_new,
    .tp_dealloc = (destructor)Postings_dealloc,
    .tp_methods = Postings_methods,
    .tp_as_sequence = &Postings_sequence,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "skills_core.context._body_words",
    .m_doc = "Skills' body words, cut, counted and posted in C (see words.py).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__body_words(void) {
    for (int byte = 0; byte < 256; byte++) {
        if (byte >= 'A' && byte <= 'Z')
            WORD_BYTE[byte] = (unsigned char)(byte + 32);
        else if ((byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9'))
            WORD_BYTE[byte] = (unsigned char)byte;
        BYTE_KIND[byte] = byte >= 0x80 ? 2 : WORD_BYTE[byte] != 0;
    }
    PyObject *os = PyImport_ImportModule("os");
    PyObject *random = os ? PyObject_CallMethod(os, "urandom", "i", (int)sizeof(SEED)) : NULL;
    Py_XDECREF(os);
    if (random == NULL) return NULL;
    memcpy(SEED, PyBytes_AS_STRING(random), sizeof(SEED));
    Py_DECREF(random);
    for (int at = 0; at < 3; at++) SEED[at] |= 1; /* odd: a product never loses every bit */
    if (PyType_Ready(&WordCountsType) < 0 || PyType_Ready(&PostingsType) < 0) return NULL;
    PyObject *created = PyModule_Create(&module);
    if (created == NULL) return NULL;
    if (PyModule_AddObjectRef(created, "WordCounts", (PyObject *)&WordCountsType) < 0 ||
        PyModule_AddObjectRef(created, "Postings", (PyObject *)&PostingsType) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
