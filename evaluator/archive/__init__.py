"""`sdeval archive`: the auditor's archive of signed assessment reports.

An archive is a folder:
  archive.json            what this folder is (format version, archive id, where its index is)
  log.jsonl               the action log's second copy, one entry a line (see log.py)
  log-anchors/            the log's head time-stamped by an RFC 3161 authority (see anchor.py)
  anchors/FPR.pem         the trust anchors, one certificate per file, named by SHA-256 fingerprint
  objects/ab/SHA256.pdf   admitted reports, content-addressed, read-only, never overwritten
  tmp/                    reports being added (part files), per-report locks, log.pending
  index.sqlite            the index, unless it lives in PostgreSQL (`--db URL`)

Modules, one concern each:
  location.py      which folder and index a command works on (options, environment, archive.json),
                   the anchor check, and Archive.writing(): every write, under the folder's lock
  store.py         the content-addressed files, their locks, and recovery after a killed add
  index.py         the SQLAlchemy Core tables, schema version and migrations, queries
  log.py           the hash-chained action log: entry hashes, the chain check, log.jsonl
  anchor.py        the log's head anchored with a time-stamping authority, and the anchors checked
  faults.py        the named step boundaries where tests kill or pause a writing command
  verification.py  the ONE place that calls sdeval's report verification
  reassess.py      the ONE place that re-assesses archived inputs with the installed rule catalog
  common.py        what every command shares: its error, times, opening, resolving, quiet logging
  facts.py         what the index keeps of a verified report, and how the index differs from it
  admitting.py     init (the archive, its anchors) and add (verify, store, index, or refuse)
  verifying.py     verify (files, reports, index and log checked again) and rebuild (a lost index)
  reverify.py      verify's per-report work, shared among processes; --shard and --since
  finding.py       list, show, extract and log (read-only)
  rejudging.py     rejudge (the installed catalog applied again) and withdraw
The commands return plain data; cli/archive.py wires them into `sdeval archive ...` and prints.
"""
