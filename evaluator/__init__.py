"""sdeval: decide whether a speculative-decoding offer's claims are backed by evidence."""

__version__ = "0.1.0"
