"""The ``streamrank`` command line, built on click.

One module per command: ``demo`` (`streamrank.cli.demo`), ``eval`` (`.eval`), ``monitor``
(`.monitor`), ``epochs`` (`.epochs`) and ``compare`` (`.compare`). Shared
options, errors and output formats are in `._common`.

Exit codes, the same for every command: 0 ok, 1 an alert was raised where the user asked
for that (``--fail-on-alert``), 2 a usage or input error (the message names the file, the
row and the value).

The command comes with the ``cli`` extra (``pip install "streamrank[cli]"``).
"""

from __future__ import annotations

import importlib

from .._extras import require
from ..exceptions import MissingExtraError

click = require("click", "cli", "the streamrank command")

__all__ = ["main"]

# command name -> "module:attribute"; imported only when the command runs (or --help lists
# it), so `streamrank demo` does not pay for dask or the compare LP solver.
_COMMANDS = {
    "compare": "streamrank.cli.compare:compare",
    "demo": "streamrank.cli.demo:demo",
    "epochs": "streamrank.cli.epochs:epochs",
    "eval": "streamrank.cli.eval:eval_command",
    "monitor": "streamrank.cli.monitor:monitor",
}


# The one-line help `streamrank --help` lists, without importing the commands (a test
# checks that each equals its command's own short help).
SHORT_HELP = {
    "compare": "Compare the models of FILE (one row per model and data set) by...",
    "demo": "Learn River's bundled Phishing data and a drifting Sine stream...",
    "epochs": "Exact pair counts, AUC (binary labels) or C-index and...",
    "eval": "Exact metrics of the predictions in FILE (CSV, TSV, Parquet,...",
    "monitor": "Monitor a stream of prediction events: exact rolling AUC,...",
}


class _LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx):
        return sorted(_COMMANDS)

    def format_commands(self, ctx, formatter):
        """The command list of ``--help`` from `SHORT_HELP`: no command is imported."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, SHORT_HELP[name]) for name in sorted(_COMMANDS)])

    def get_command(self, ctx, name):
        return self._load(name)

    def invoke(self, ctx):
        """Run the command; an optional dependency it needs and lacks is one line naming
        the extra to install (exit status 1), not a traceback."""
        try:
            return super().invoke(ctx)
        except MissingExtraError as exc:
            raise click.ClickException(str(exc)) from None

    @staticmethod
    def _load(name):
        target = _COMMANDS.get(name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="streamrank")
def main():
    """Exact rank metrics (AUC with ties, Kendall's tau, C-index, GAUC, NDCG, ...) that stay
    exact while the data moves.

    Exit codes: 0 ok, 1 an alert was raised and --fail-on-alert was given, 2 a usage or
    input error.
    """
