"""The evidence record and what is computed from it, before any rule judges it: reading a file
(loader), the record's model (record), what a schema error says (schema_wording), each run's
metrics (metrics), the figure each claim should rest on (claim_figures), the baseline each run is
compared with (baselines), one record's lookups (context), and the tool's words (wording).

Imports nothing of sdeval's above it (only _infra)."""
