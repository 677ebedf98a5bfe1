"""`python -m scoring <benchmark> ...`: score prediction files without Django or a database."""
import sys

from scoring.cli import main, single_threaded_blas

if __name__ == "__main__":
    single_threaded_blas()
    sys.exit(main())
