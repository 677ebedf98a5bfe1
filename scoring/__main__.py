"""`python -m scoring <benchmark> ...`: score prediction files without Django or a database."""
import sys

from scoring.cli import main

if __name__ == "__main__":
    sys.exit(main())
