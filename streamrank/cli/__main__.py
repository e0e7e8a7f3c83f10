"""``python -m streamrank.cli``."""

from streamrank.cli import main

main()
