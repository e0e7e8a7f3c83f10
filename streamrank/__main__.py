"""``streamrank`` (the script) and ``python -m streamrank``: the command line, or without
the ``cli`` extra one line that names it (exit status 1) instead of a traceback."""

from __future__ import annotations

from .exceptions import MissingExtraError


def main() -> None:
    """Run the ``streamrank`` command (`streamrank.cli.main`)."""
    try:
        from .cli import main as run
    except MissingExtraError as exc:
        raise SystemExit(f"streamrank: {exc}") from None
    run()


if __name__ == "__main__":
    main()
