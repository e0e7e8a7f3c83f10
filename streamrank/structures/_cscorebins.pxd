# cython: language_level=3
"""C declarations of `ScoreBins`, shared with `streamrank.structures._cpairwindow` (whose
sync hands it a window's every-row log in C)."""


cdef class ScoreBins:
    cdef double[::1] ref        # the reference's distinct scores, increasing
    cdef double[::1] lt         # window weight strictly between ref[j - 1] and ref[j]
    cdef double[::1] eq         # window weight at ref[j]
    cdef readonly object _lt, _eq, _ref
    cdef readonly Py_ssize_t rows       # window rows held
    cdef readonly Py_ssize_t fractional # changes of a fractional (or huge) weight since
                                        # the last recount
    cdef readonly bint whole            # every weight held whole (since the last recount)

    cdef void put(self, double s, double w, int sign) noexcept
