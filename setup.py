"""Build the compiled core (Cython, ahead of time, with the machine's C compiler).

Everything else about the package lives in pyproject.toml; setuptools reads the extension
modules from here. The build is one pass over every core at once: Cython translates the
modules in parallel processes, Cython's runtime support (memoryviews, function objects,
...) is generated once as the module `CYTHON_UTILITY` instead of into every module, and the
C compiler runs one process per core. docs/building.md gives the measured costs and why.
A machine without a C compiler gets one clear error at install time.
"""

import glob
import os

from Cython.Build import cythonize
from Cython.Utils import file_generated_by_this_cython
from setuptools import Extension, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext

# One compiled module per structure or kernel family; a new module is one more name here.
MODULES = [
    "streamrank.structures._csums",
    "streamrank.structures._ckeyrows",
    "streamrank.structures._cbtree",
    "streamrank.structures._cbinary",
    "streamrank.structures._ccounter",
    "streamrank.structures._cmpool",
    "streamrank.structures._cdominance",
    "streamrank.structures._cslots",
    "streamrank.structures._cwindow",
    "streamrank.structures._cscorebins",
    "streamrank.structures._crecent",
    "streamrank.structures._cpairwindow",
    "streamrank.structures._cmetric",
    "streamrank.monitor._cruns",
    "streamrank.batch._ckernels",
    "streamrank.batch._clevels",
    "streamrank.batch._cgroups",
    "streamrank.batch._ccurves",
    "streamrank.batch._cplacements",
]
CYTHON_UTILITY = "streamrank._cyutility"
DIRECTIVES = {"boundscheck": False, "wraparound": False}
C_FLAGS = ["-O2", "-g0"]     # after Python's own flags (-g -O3), so these win
JOBS = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else os.cpu_count() or 1)


class BuildCore(build_ext):
    """`build_ext` on every core, reusing a module an earlier build of the same sources made
    (`pip install .` then `pip install -e .` compile once), and naming what is missing when
    the C compiler cannot run."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:      # `-j N` on the command line still decides
            self.parallel = JOBS

    def build_extension(self, ext):
        target = self.get_ext_fullpath(ext.name)
        sources = [*ext.sources, *ext.depends]
        for built in self.earlier_builds(ext):
            if (not self.force and os.path.abspath(built) != os.path.abspath(target)
                    and not newer(sources, built)):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                self.copy_file(built, target)
                return
        super().build_extension(ext)

    def earlier_builds(self, ext):
        """Where earlier builds left `ext`: `build/lib.*` of a regular build (`pip install
        .`), then beside its sources (an editable install or `build_ext --inplace`)."""
        regular = build(self.distribution)
        regular.finalize_options()
        filename = self.get_ext_filename(self.get_ext_fullname(ext.name))
        inplace, _ = self._get_inplace_equivalent(self.get_finalized_command("build_py"), ext)
        return [os.path.join(regular.build_platlib, filename), inplace]

    def run(self):
        try:
            super().run()
        except Exception as exc:  # distutils raises several types for a missing compiler
            raise SystemExit(
                "streamrank: building its compiled core failed. It needs a C compiler "
                "(gcc or clang) and the Python headers: on Debian or Ubuntu, "
                "'apt-get install build-essential python3-dev'. The compiler said: "
                f"{exc}") from exc


def newer(paths, target):
    """Whether any of ``paths`` was modified after ``target`` (or ``target`` is missing)."""
    if not os.path.exists(target):
        return True
    built = os.path.getmtime(target)
    return any(os.path.getmtime(path) > built for path in paths)


def cython_state(name):
    """What Cython has to do for the module: ``"done"`` when the C this Cython generated from
    it is newer than this file and every Cython source of the package (pip builds in a fresh
    environment whose Cython files look newer than any earlier C: without this a second
    build, `pip install -e .` after `pip install .`, would translate and compile again);
    ``"force"`` when there is no such C or it is older than this file (the options may have
    changed); else ``"check"``: Cython compares the module's own dependencies."""
    c_file = name.replace(".", "/") + ".c"
    if not file_generated_by_this_cython(c_file) or newer([__file__], c_file):
        return "force"
    ours = [path for suffix in ("pyx", "pxd", "pxi")
            for path in glob.glob(f"streamrank/**/*.{suffix}", recursive=True)]
    return "check" if newer(ours, c_file) else "done"


def extension(name, suffix):
    return Extension(name, [name.replace(".", "/") + suffix], depends=[__file__],
                     extra_compile_args=C_FLAGS)


def extensions():
    """The `Extension` of every module in `MODULES` and of the runtime support they import,
    each translated to C by Cython as `cython_state` says."""
    states = {name: cython_state(name) for name in MODULES}

    def translate(state, extra=()):
        modules = [extension(n, ".pyx") for n in MODULES if states[n] == state]
        return cythonize(modules + list(extra), force=state == "force", nthreads=JOBS,
                         language_level=3, compiler_directives=DIRECTIVES,
                         shared_utility_qualified_name=CYTHON_UTILITY)

    # Cython generates the runtime support's C when it is missing or from another Cython.
    return ([extension(n, ".c") for n in MODULES if states[n] == "done"]
            + translate("force") + translate("check", [extension(CYTHON_UTILITY, ".c")]))


if __name__ == "__main__":
    setup(cmdclass={"build_ext": BuildCore}, ext_modules=extensions())
