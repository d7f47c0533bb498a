"""`sdeval measure`: the buyer measures an OpenAI-compatible endpoint, both arms, and gets a record.

capture.py keeps every request and scrape on disk as it arrives; client.py streams one request and
times it; loop.py runs the closed-loop windows; scrape.py reads the servers' counters (through
the importers' Prometheus parsing); build.py turns the capture into an evidence record 1.3 (uncertainty.py and intervals.py give each run its intervals);
simulator.py is an OpenAI-compatible test server with a real toy drafter and injectable faults.
"""
