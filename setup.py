"""Build the compiled core (Cython, ahead of time, with the machine's C compiler).

Everything else about the package lives in pyproject.toml; setuptools reads the extension
modules from here. A machine without a C compiler gets one clear error at install time.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildCore(build_ext):
    """`build_ext` that names what is missing when the C compiler cannot run."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # distutils raises several types for a missing compiler
            raise SystemExit(
                "streamrank: building its compiled core failed. It needs a C compiler "
                "(gcc or clang) and the Python headers: on Debian or Ubuntu, "
                "'apt-get install build-essential python3-dev'. The compiler said: "
                f"{exc}") from exc


extensions = [
    Extension("streamrank.structures._cbinary", ["streamrank/structures/_cbinary.pyx"],
              extra_compile_args=["-O3"]),
    Extension("streamrank.structures._cdominance", ["streamrank/structures/_cdominance.pyx"],
              extra_compile_args=["-O3"]),
    Extension("streamrank.structures._cslots", ["streamrank/structures/_cslots.pyx"],
              depends=["streamrank/structures/_cslots.pxd"], extra_compile_args=["-O3"]),
    Extension("streamrank.structures._cwindow", ["streamrank/structures/_cwindow.pyx"],
              depends=["streamrank/structures/_cslots.pxd",
                       "streamrank/structures/_cwindow.pxd"], extra_compile_args=["-O3"]),
    Extension("streamrank.structures._cpairwindow",
              ["streamrank/structures/_cpairwindow.pyx"],
              depends=["streamrank/structures/_cslots.pxd",
                       "streamrank/structures/_cwindow.pxd"], extra_compile_args=["-O3"]),
    Extension("streamrank.batch._ckernels", ["streamrank/batch/_ckernels.pyx"],
              extra_compile_args=["-O3"]),
    Extension("streamrank.batch._clevels", ["streamrank/batch/_clevels.pyx"],
              extra_compile_args=["-O3"]),
    Extension("streamrank.batch._ccurves", ["streamrank/batch/_ccurves.pyx"],
              extra_compile_args=["-O3"]),
]

setup(cmdclass={"build_ext": BuildCore},
      ext_modules=cythonize(extensions, language_level=3,
                            compiler_directives={"boundscheck": False,
                                                 "wraparound": False}))
