# ---------------------------------------------------------------------------------------------------------------
# Letter runs: what language detection reads of a text sample (``letter_runs``, ``sample_runs``,
# ``sample_votes``), and the string table it looks all-ASCII words up in (``string_table``).
# Included by _core.pyx (one module, one generated C file).


cdef inline uint64_t _fnv(const uint32_t* key, Py_ssize_t length) noexcept nogil:
    cdef uint64_t h = 1469598103934665603ULL
    cdef Py_ssize_t i
    for i in range(length):
        h = (h ^ <uint64_t> key[i]) * 1099511628211ULL
    return h


cdef struct _Table:
    const uint32_t* chars
    const long long* starts
    const long long* values
    const int* slots
    Py_ssize_t mask


# Short ASCII words packed into one integer: 5 bits a letter (a = 1 ... z = 26), so that looking a run of letters
# up is one multiplication and one comparison, computed while the run is read (no hash pass, no memcmp).
cdef enum:
    _PACKED_MAX = 12
cdef uint64_t _GOLDEN = 0x9E3779B97F4A7C15ULL


cdef inline Py_ssize_t _packed_slot(uint64_t key, int shift) noexcept nogil:
    return <Py_ssize_t> ((key * _GOLDEN) >> shift)


def string_table(words, values):
    """A read-only map from strings to ints for ``letter_runs``: a ``StringTable`` of five arrays.

    ``chars[starts[i]:starts[i + 1]]`` are the code points of ``words[i]`` (uint32); ``slots`` is an open-addressing
    table (a power of two, at least twice the words; -1 empty; FNV-1a over the code points, linear probing) of
    word indices. ``packed`` (int64, shape (size, 2), size a power of two >= 8 and >= twice those words) holds the
    words of 1 to 12 letters a-z again as (key, value) rows: key = the letters' codes a = 1 ... z = 26, 5 bits
    each, first letter highest; 0 marks an empty row; the row of a key is its top bits of key x 0x9E3779B97F4A7C15,
    then linear probing. Why arrays: the scan reads them without the GIL, and the caller builds the table once.
    """
    cdef list items = list(words)
    cdef list vals = list(values)
    cdef Py_ssize_t n = len(items), i, j, size = 8, total = 0, short = 0, packed_size = 8
    cdef int shift = 61
    cdef uint64_t key
    if len(vals) != n:
        raise ValueError("words and values must have the same length")
    if len(set(items)) != n:
        raise ValueError("words must be distinct")
    for w in items:
        if not isinstance(w, str):
            raise TypeError(f"string_table expects str words, got {type(w).__name__}")
        total += len(w)
        if _packable(w):
            short += 1
    while size < 2 * n:
        size *= 2
    while packed_size < 2 * short:
        packed_size *= 2
        shift -= 1
    chars_arr = _EMPTY(total, _U32)
    starts_arr = _ZEROS(n + 1, _I64)
    values_arr = np.asarray(vals, dtype=np.int64).reshape(n)
    slots_arr = np.full(size, -1, dtype=np.int32)
    packed_arr = _ZEROS((packed_size, 2), _I64)
    cdef unsigned int[::1] chars = chars_arr
    cdef long long[::1] starts = starts_arr
    cdef int[::1] slots = slots_arr
    cdef long long[:, ::1] packed = packed_arr
    cdef Py_ssize_t at = 0
    for i in range(n):
        for ch in items[i]:
            chars[at] = ord(ch)
            at += 1
        starts[i + 1] = at
        j = <Py_ssize_t> (_fnv(<const uint32_t*> &chars[starts[i]] if at > starts[i] else NULL, at - starts[i])
                          & <uint64_t> (size - 1))
        while slots[j] >= 0:
            j = (j + 1) & (size - 1)
        slots[j] = <int> i
        if _packable(items[i]):
            key = 0
            for ch in items[i]:
                key = (key << 5) | <uint64_t> (ord(ch) - 96)
            j = _packed_slot(key, shift)
            while packed[j, 0]:
                j = (j + 1) & (packed_size - 1)
            packed[j, 0] = <long long> key
            packed[j, 1] = values_arr[i]
    return StringTable(chars_arr, starts_arr, values_arr, slots_arr, packed_arr)


cdef class StringTable:
    """What ``string_table`` builds: its five arrays as read-only attributes (``chars``, ``starts``, ``values``,
    ``slots``, ``packed``), and private copies the scan reads.

    Why an object: a table is built once and read for every page; checking five caller-supplied arrays before
    each scan (a malformed one could make a lookup probe forever) would cost more than the scan of a short page.
    Only ``string_table`` makes one, so the copies are well formed by construction.
    """

    cdef readonly object chars, starts, values, slots, packed
    cdef readonly long long limit  # 1 + the largest value (0 for none): a scan's n_votes must be at least this
    cdef _Table table
    cdef long long* rows
    cdef uint64_t rows_mask
    cdef int shift
    cdef void* block

    def __cinit__(self, chars, starts, values, slots, packed):
        cdef const unsigned int[::1] c = chars
        cdef const long long[::1] st = starts
        cdef const long long[::1] v = values
        cdef const int[::1] sl = slots
        cdef const long long[:, ::1] pk = packed
        cdef Py_ssize_t n_chars = c.shape[0], n_words = v.shape[0], n_slots = sl.shape[0], n_rows = pk.shape[0], j
        cdef Py_ssize_t empty = 0
        cdef char* at
        # Checked once here (the scans then trust the copies): a lookup must never run off an array or probe a
        # table without an empty entry forever.
        if st.shape[0] != n_words + 1:
            raise ValueError("starts must hold len(values) + 1 offsets")
        _check_offsets(st, n_chars, "starts", "len(chars)")
        if n_slots < 1 or n_slots & (n_slots - 1) or n_slots < n_words:
            raise ValueError("slots must be a power of two, at least len(values)")
        for j in range(n_words):
            if v[j] < 0:
                raise ValueError("values must be >= 0")
        for j in range(n_slots):
            if sl[j] < -1 or sl[j] >= n_words:
                raise ValueError("slots must hold -1 or a word index")
            empty += sl[j] < 0
        if empty == 0:
            raise ValueError("slots must have an empty entry")
        if pk.shape[1] != 2 or n_rows < 8 or n_rows & (n_rows - 1):
            raise ValueError("packed must have shape (size, 2), size a power of two >= 8")
        empty = 0
        for j in range(n_rows):
            if pk[j, 0] < 0 or pk[j, 1] < 0:
                raise ValueError("packed rows must hold a key >= 0 and a value >= 0")
            empty += pk[j, 0] == 0
        if empty == 0:
            raise ValueError("packed must have an empty row")
        self.block = malloc(n_chars * sizeof(uint32_t) + (n_words + 1 + n_words + 2 * n_rows) * sizeof(long long)
                            + n_slots * sizeof(int) + 64)
        if self.block == NULL:
            raise MemoryError()
        at = <char*> self.block
        self.rows = <long long*> at
        memcpy(self.rows, &pk[0, 0], 2 * n_rows * sizeof(long long))
        at += 2 * n_rows * sizeof(long long)
        self.table.starts = <const long long*> at
        memcpy(at, &st[0], (n_words + 1) * sizeof(long long))
        at += (n_words + 1) * sizeof(long long)
        self.table.values = <const long long*> at
        if n_words:
            memcpy(at, &v[0], n_words * sizeof(long long))
        at += n_words * sizeof(long long)
        self.table.slots = <const int*> at
        memcpy(at, &sl[0], n_slots * sizeof(int))
        at += n_slots * sizeof(int)
        self.table.chars = <const uint32_t*> at
        if n_chars:
            memcpy(at, &c[0], n_chars * sizeof(uint32_t))
        self.table.mask = n_slots - 1
        self.rows_mask = <uint64_t> (n_rows - 1)
        self.shift = 64
        while (<uint64_t> 1) << (64 - self.shift) < <uint64_t> n_rows:
            self.shift -= 1
        self.limit = 0
        for j in range(n_words):
            self.limit = max(self.limit, v[j] + 1)
        for j in range(n_rows):
            if pk[j, 0]:
                self.limit = max(self.limit, pk[j, 1] + 1)
        for a in (chars, starts, values, slots, packed):
            a.flags.writeable = False
        self.chars, self.starts, self.values, self.slots, self.packed = chars, starts, values, slots, packed

    def __dealloc__(self):
        free(self.block)


cdef bint _packable(str w):
    """1 to 12 letters a-z: a word ``string_table`` also packs."""
    if not 1 <= len(w) <= _PACKED_MAX:
        return False
    for ch in w:
        if not "a" <= ch <= "z":
            return False
    return True


cdef inline long long _find(const _Table* t, const uint32_t* key, Py_ssize_t length, uint64_t h) noexcept nogil:
    """The value of ``key`` (whose ``_fnv`` hash is ``h``) in a ``string_table``, or -1."""
    cdef Py_ssize_t j = <Py_ssize_t> (h & <uint64_t> t.mask)
    cdef int w
    while True:
        w = t.slots[j]
        if w < 0:
            return -1
        if (t.starts[w + 1] - t.starts[w] == length
                and (length == 0 or memcmp(t.chars + t.starts[w], key, length * sizeof(uint32_t)) == 0)):
            return t.values[w]
        j = (j + 1) & t.mask


cdef inline bint _is_letter(uint32_t c) noexcept nogil:
    """What ``re``'s ``[^\W\d_]`` matches: alphanumeric but not a decimal digit (and not ``_``)."""
    if c < 128:
        return (65 <= c <= 90) or (97 <= c <= 122)
    return Py_UNICODE_ISALNUM(c) and not Py_UNICODE_ISDECIMAL(c)


# Per ASCII character: its letter code (a/A = 1 ... z/Z = 26), 0 for anything that is not a letter.
cdef uint8_t _LETTER[128]
for _c in range(128):
    _LETTER[_c] = _c - 64 if 65 <= _c <= 90 else _c - 96 if 97 <= _c <= 122 else 0


cdef struct _Part:
    # One text of a language sample: its buffer, how many code points the sample takes, and whether the space
    # joining it to the text before is in the sample.
    const void* data
    Py_ssize_t n
    int kind
    bint space


cdef struct _Runs:
    # What the letter-run scan keeps across the texts of a sample (see ``sample_runs``).
    long long* lo
    long long* hi
    Py_ssize_t k
    long long min_lo
    long long* in_range
    long long letters
    Py_ssize_t words, max_words
    const _Table* table
    const long long* packed
    uint64_t packed_mask
    int shift
    long long* votes
    _Vocab* v
    _Out* out
    uint32_t* buf


cdef inline long long _find_packed(const _Runs* s, uint64_t key) noexcept nogil:
    """The value of a packed key in the ``string_table``'s packed rows, or -1."""
    cdef Py_ssize_t j = _packed_slot(key, s.shift)
    cdef long long found
    while True:
        found = s.packed[2 * j]
        if found == <long long> key:
            return s.packed[2 * j + 1]
        if found == 0:
            return -1
        j = (j + 1) & s.packed_mask


cdef int _end_run(_Runs* s, const _char_t* data, Py_ssize_t start, Py_ssize_t end, uint64_t key, bint ascii
                  ) except -1 nogil:
    """The run data[start:end], one of the first ``max_words``: an all-ASCII run, lower-cased (its casefold),
    votes through the table (by its packed ``key`` when it has at most 12 letters); any other run is interned."""
    cdef Py_ssize_t k, length = end - start
    cdef long long value
    cdef uint64_t h = 1469598103934665603ULL
    cdef uint32_t c
    if ascii and length <= _PACKED_MAX:
        value = _find_packed(s, key)
    elif ascii:
        for k in range(length):  # lower-case and hash in one pass (_fnv of the lower-cased run)
            c = data[start + k]
            if c <= 90:
                c += 32
            s.buf[k] = c
            h = (h ^ <uint64_t> c) * 1099511628211ULL
        value = _find(s.table, s.buf, length, h)
    else:
        for k in range(length):
            s.buf[k] = data[start + k]
        _emit(s.out, _intern(s.v, s.buf, length, False))
        value = -1
    if value >= 0:
        s.votes[value] += 1
    s.words += 1
    return 0


cdef inline void _count_ranges(_Runs* s, uint32_t c) noexcept nogil:
    cdef Py_ssize_t r
    if s.k and c >= s.min_lo:
        for r in range(s.k):
            if s.lo[r] <= c <= s.hi[r]:
                s.in_range[r] += 1


cdef int _runs(_Runs* s, const _char_t* data, Py_ssize_t n) except -1 nogil:
    """One text of the sample (or its first n code points): code points per range, letters, and runs while fewer
    than ``max_words`` were read. An ASCII letter only extends the run's packed key; other code points take the
    slow path (ranges, Unicode classes)."""
    cdef Py_ssize_t i, start = 0
    cdef uint32_t c
    cdef uint8_t code
    cdef uint64_t key = 0
    cdef bint ascii = True, in_run = False
    for i in range(n):
        c = data[i]
        if c < 128:
            if c >= s.min_lo:  # only when a range reaches into ASCII (min_lo is past it when there are none)
                _count_ranges(s, c)
            code = _LETTER[c]
            if code:
                s.letters += 1
                if not in_run:
                    in_run = True
                    start = i
                    key = 0
                    ascii = True
                key = (key << 5) | code
                continue
        else:
            _count_ranges(s, c)
            if Py_UNICODE_ISALNUM(c) and not Py_UNICODE_ISDECIMAL(c):
                s.letters += 1
                if not in_run:
                    in_run = True
                    start = i
                    key = 0
                ascii = False
                continue
        if in_run:
            in_run = False
            if s.words < s.max_words:
                _end_run(s, data, start, i, key, ascii)
    if in_run and s.words < s.max_words:
        _end_run(s, data, start, n, key, ascii)
    return 0


def letter_runs(text, const long long[:, ::1] ranges, Py_ssize_t max_words, StringTable table not None,
                Py_ssize_t n_votes):
    """What a stopword vote needs of ``text``, in one pass: ``(in_range, letters, runs, votes, words, counts)``.

    A run is a maximal run of letters, as ``re.findall(r"[^\W\d_]+", text)`` finds them; ``letters`` is their
    total length, ``in_range[r]`` the number of code points of ``text`` in ``ranges[r] = (lo, hi)`` (inclusive),
    ``runs`` the number of runs read: the first ``max_words``. Of those, an all-ASCII run is lower-cased (which
    is its ``str.casefold``) and looked up in the ``string_table``: ``votes[x]`` counts the runs found with value x
    (its values must lie in [0, n_votes)). Every other run is
    returned as written (the caller casefolds it: full Unicode case folding is Python's): ``words`` are the
    distinct ones in order of first appearance, ``counts`` their occurrences. Why compiled: detection reads every
    word of a sample of several thousand characters, which in Python takes several regex passes and a string per
    word; here an English page makes no Python string.
    """
    if not isinstance(text, str):
        raise TypeError(f"letter_runs expects a str, got {type(text).__name__}")
    return sample_runs([text], (True,), 0, PyUnicode_GET_LENGTH(text), ranges, max_words, table, n_votes)


def sample_runs(texts, use, Py_ssize_t min_chars, Py_ssize_t max_chars, const long long[:, ::1] ranges,
                Py_ssize_t max_words, StringTable table not None, Py_ssize_t n_votes):
    """``letter_runs`` of a sample of ``texts``, without building it: the texts whose ``use`` flag is true, in
    order, up to and including the first that takes their total length past ``min_chars``, joined by single
    spaces, cut after ``max_chars`` code points.

    Why: the scorer guesses a page's language from its first few thousand characters of prose; joining them
    into one string cost a copy of the sample, and one non-Latin-1 character anywhere (a curly quote) made the
    whole copy four bytes a character.
    """
    return _sample(texts, use, min_chars, max_chars, ranges, max_words, table, n_votes, None)


def sample_votes(texts, use, Py_ssize_t min_chars, Py_ssize_t max_chars, const long long[:, ::1] ranges,
                 Py_ssize_t max_words, StringTable table not None, const long long[:, ::1] matrix not None):
    """``sample_runs`` with the votes tallied: ``(in_range, letters, runs, totals, words, counts)`` as Python
    ints and lists, ``totals = votes @ matrix`` (``matrix``: one row per table value, one column per candidate).

    Why: language detection turned ``sample_runs``'s arrays into lists and multiplied the votes by the class x
    candidate matrix in numpy, a dozen small calls per page that cost half as much as the scan of the sample.
    Every number here is an integer, so the sum is exact in any order: the caller may add the votes of the
    ``words`` it classifies itself as ``extra @ matrix``.
    """
    return _sample(texts, use, min_chars, max_chars, ranges, max_words, table, matrix.shape[0], matrix)


cdef tuple _sample(texts, use, Py_ssize_t min_chars, Py_ssize_t max_chars, const long long[:, ::1] ranges,
                   Py_ssize_t max_words, StringTable table, Py_ssize_t n_votes, const long long[:, ::1] matrix):
    """``sample_runs`` (``matrix`` None) or ``sample_votes``."""
    cdef list items = _texts(texts)
    cdef const unsigned char* flag_bytes = NULL
    cdef list flags = None
    if isinstance(use, bytes):
        flag_bytes = <const unsigned char*> (<bytes> use)
        if len(<bytes> use) != len(items):
            raise ValueError("use must have one flag per text")
    else:
        flags = [bool(x) for x in use]
        if len(flags) != len(items):
            raise ValueError("use must have one flag per text")
    if ranges.shape[1] != 2:
        raise ValueError("ranges must have shape (k, 2)")
    if max_words < 0 or min_chars < 0 or max_chars < 0:
        raise ValueError("max_words, min_chars and max_chars must be >= 0")
    if n_votes < table.limit:
        raise ValueError("the table's values must lie in [0, n_votes)")
    cdef Py_ssize_t k = ranges.shape[0], r, t, w, n, longest = 1, pos = 0, size = 0, n_parts = 0, c
    cdef Py_ssize_t n_cand = matrix.shape[1] if matrix is not None else 0
    cdef _Runs s
    cdef _Vocab v
    cdef _Out out
    cdef long long* tally = NULL
    cdef long long* votes = NULL
    cdef long long* sums = NULL
    cdef _Part* parts = NULL
    memset_vocab(&v)
    out = _no_out()
    s.lo = NULL
    s.hi = NULL
    s.buf = NULL
    s.in_range = NULL
    try:
        # The sample's parts: each chosen text's code points that fall before max_chars, and whether the space
        # before it (after the first) does.
        parts = <_Part*> malloc((len(items) + 1) * sizeof(_Part))
        if parts == NULL:
            raise MemoryError()
        for t in range(len(items)):
            if not (flag_bytes[t] if flag_bytes != NULL else flags[t]):
                continue
            if n_parts:
                pos += 1
            n = PyUnicode_GET_LENGTH(items[t])
            parts[n_parts].space = n_parts > 0 and pos - 1 < max_chars
            parts[n_parts].n = max(0, min(n, max_chars - pos))
            parts[n_parts].data = PyUnicode_DATA(items[t])
            parts[n_parts].kind = PyUnicode_KIND(items[t])
            longest = max(longest, parts[n_parts].n)
            n_parts += 1
            pos += n
            size += n
            if size > min_chars:
                break
        s.lo = <long long*> malloc((k + 1) * sizeof(long long))
        s.hi = <long long*> malloc((k + 1) * sizeof(long long))
        s.buf = <uint32_t*> malloc((longest + 1) * sizeof(uint32_t))
        s.in_range = <long long*> calloc(k + 1, sizeof(long long))
        votes = <long long*> calloc(n_votes + 1, sizeof(long long))
        if s.lo == NULL or s.hi == NULL or s.buf == NULL or s.in_range == NULL or votes == NULL:
            raise MemoryError()
        s.k = k
        s.min_lo = 0x110000
        for r in range(k):
            s.lo[r] = ranges[r, 0]
            s.hi[r] = ranges[r, 1]
            s.min_lo = min(s.min_lo, max(s.lo[r], 0))
        s.letters = 0
        s.words = 0
        s.max_words = max_words
        s.table = &table.table
        s.packed = table.rows
        s.packed_mask = table.rows_mask
        s.shift = table.shift
        s.votes = votes
        s.v = &v
        s.out = &out
        with nogil:
            for t in range(n_parts):
                if parts[t].space:  # a space ends any run and is counted like every code point
                    _count_ranges(&s, 32)
                if parts[t].kind == 1:
                    _runs(&s, <const uint8_t*> parts[t].data, parts[t].n)
                elif parts[t].kind == 2:
                    _runs(&s, <const uint16_t*> parts[t].data, parts[t].n)
                else:
                    _runs(&s, <const uint32_t*> parts[t].data, parts[t].n)
        tally = <long long*> calloc(v.n + 1, sizeof(long long))
        if tally == NULL:
            raise MemoryError()
        for w in range(out.n):
            tally[out.ids[w]] += 1
        words = [PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, v.chars + v.start[w], v.length[w])
                 for w in range(v.n)]
        if matrix is None:
            return (_copy_array(s.in_range, k, _I64), s.letters, s.words, _copy_array(votes, n_votes, _I64),
                    words, _copy_array(tally, v.n, _I64))
        # votes @ matrix by the rows that got votes (a page's words fall in a few of the classes), each row read
        # along its length, since a column-by-column sum over every row would read the whole matrix.
        sums = <long long*> calloc(n_cand + 1, sizeof(long long))
        if sums == NULL:
            raise MemoryError()
        for r in range(n_votes):
            if votes[r]:
                for c in range(n_cand):
                    sums[c] += votes[r] * matrix[r, c]
        totals = [sums[c] for c in range(n_cand)]
        return ([s.in_range[r] for r in range(k)], s.letters, s.words, totals, words,
                [tally[w] for w in range(v.n)])
    finally:
        free(s.lo); free(s.hi); free(s.buf); free(s.in_range); free(votes); free(tally); free(out.ids); free(parts)
        free(sums)
        _free_vocab(&v)
