"""What every sdeval command exits with: the one definition, for every stage that decides one.

0   no error finding (with --requirements: some offer meets every requirement)
1   at least one error finding (or no offer meets every requirement; a failed verification)
2   the command could not run: bad input, a usage problem, an internal error (one line, naming the file)
130 stopped by Ctrl-C (128 + SIGINT, what a shell reports)
"""

EXIT_OK, EXIT_FINDINGS, EXIT_CANNOT_RUN = 0, 1, 2
EXIT_INTERRUPTED = 130
