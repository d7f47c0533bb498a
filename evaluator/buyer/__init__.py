"""The buyer's side: a requirements profile, and every offer judged against it.

profile.py      the requirements profile (pydantic; schemas/requirements.schema.json)
evidence.py     which of an offer's evidence counts, and whether it matches the buyer's conditions
loads.py        latency and throughput requirements judged at every required load
quality.py      quality thresholds, absolute or as a share of the baseline
across_loads.py output throughput, speedup and break-even across measured concurrencies
economics.py    tokens/s per accelerator and per user, cost per million output tokens within the
                buyer's limits (the cheapest, against the baseline's), and the frontier comparison
judge.py        compare(): the requirements x offers matrix, the ranking and its statements
results.py      what compare() returns (the JSON `requirements` section is Comparison.as_dict())
text.py         the terminal text of it

The rule metadata of the fit codes (requirement-load-uncovered, slo-not-met, ...) lives with
the other rules, in rules/requirements.py. evaluator/pipeline.py is the one caller of compare().
"""
