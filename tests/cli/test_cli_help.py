"""`streamrank --help` lists the commands without importing them."""

import subprocess
import sys

import click

from streamrank import cli


def test_short_help_matches_each_command():
    ctx = click.Context(cli.main)
    for name in cli.main.list_commands(ctx):
        command = cli.main.get_command(ctx, name)
        assert cli.SHORT_HELP[name] == command.get_short_help_str(limit=65), name


def test_help_imports_no_command():
    code = ("import sys; from streamrank.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('streamrank.cli.', "
            "'streamrank.compare', 'scipy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    lines = out.strip().splitlines()
    assert "Commands:" in lines and any(line.split()[:1] == ["monitor"] for line in lines)
    assert lines[-1] == "[]", lines[-1]     # no command module, no scipy
