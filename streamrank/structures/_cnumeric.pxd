# cython: language_level=3
"""The C helpers the structure modules share (`streamrank.structures._cbinary`,
`_cdominance`, `_ckeyrows`, `_csums`), declared once and cimported: 128-bit integers and
their Python conversions, the double-double sum, plain Python numbers read as doubles,
and growing an array."""

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport realloc
from libc.math cimport fabs, isfinite, ldexp

cdef extern from *:
    """
    typedef __int128 sr_int128;
    typedef unsigned __int128 sr_uint128;
    """
    ctypedef long long sr_int128
    ctypedef unsigned long long sr_uint128


cdef inline object _py128(sr_int128 x):
    """An int128 as a Python int."""
    cdef bint neg = x < 0
    if neg:
        x = -x
    cdef uint64_t lo = <uint64_t>(x & <sr_int128>0xFFFFFFFFFFFFFFFFULL)
    cdef uint64_t hi = <uint64_t>(x >> 64)
    value = (<object>hi << 64) | <object>lo
    return -value if neg else value


cdef inline sr_int128 _from_py(object x) except? -1:
    """A Python int of magnitude below ``2**126`` as an int128."""
    cdef bint neg = x < 0
    if neg:
        x = -x
    if x >> 126:
        raise OverflowError("a count beyond 2**126")
    cdef uint64_t lo = <uint64_t>(x & 0xFFFFFFFFFFFFFFFF)
    cdef uint64_t hi = <uint64_t>(x >> 64)
    cdef sr_int128 v = ((<sr_int128>hi) << 64) | <sr_int128>lo
    return -v if neg else v


cdef inline double _two_sum_add(double* acc, double* comp, double x) noexcept:
    """``acc + comp += x`` as a double-double: the rounding of ``acc + x`` goes into
    ``comp`` (Neumaier), then the pair is renormalized (``acc`` the rounded sum, ``comp``
    what it leaves: an exact two-sum), so the compensation never outgrows the sum it
    corrects. (Left unnormalized, it can come to hold most of the value once ``acc``
    cancels, and lose what comes after: ``2**80`` and ``2**20`` at one score, ``2**80``
    removed, ``2**-60`` added, ``2**20`` removed, left 0.) The error of a change is then
    about ``2**-106`` of the values summed, not ``2**-53``."""
    cdef double a = acc[0], t = a + x, c, s, b
    if fabs(a) >= fabs(x):
        c = comp[0] + ((a - t) + x)
    else:
        c = comp[0] + ((x - t) + a)
    s = t + c
    b = s - t
    comp[0] = (t - (s - b)) + (c - b)
    acc[0] = s
    return s


cdef inline bint _plain(object x, double* out) noexcept:
    """A finite float, or an int float64 holds exactly (``|x| <= 2**53``), as a double."""
    cdef double v
    if isinstance(x, float):        # numpy's float64 too
        v = <double>x
        if not isfinite(v):
            return False
        out[0] = v
        return True
    cdef int64_t i
    if type(x) is int:
        try:
            i = <int64_t>x
        except OverflowError:
            return False
        if i > 9007199254740992 or i < -9007199254740992:    # 2**53
            return False
        out[0] = <double>i
        return True
    return False


cdef inline bint _in_domain(double w) noexcept nogil:
    """A float weight in the declared domain ``{0} U [2**-400, 2**400]`` (README,
    "Weights"): every product of two, and every sum of up to ``2**63`` of them, is finite
    and normal."""
    return w == 0 or (ldexp(1.0, -400) <= w <= ldexp(1.0, 400))


cdef inline int _grow_array(void** p, size_t size) except -1:
    """``p[0]`` reallocated to ``size`` bytes, or `MemoryError` (``p[0]`` is then still
    valid, and still owned)."""
    cdef void* q = realloc(p[0], size)
    if q == NULL:
        raise MemoryError()
    p[0] = q
    return 0
