"""`sdeval verify`: one report (one), a folder of them (many), the signature and timestamp checks
(signature), the check results (checks), and the budget of pyHanko's change analysis (budget). Reads
the report through report/container.py and reproduces its verdicts through the pipeline."""
