"""What every stage leans on and none decides with: forked workers (forking), files written
atomically and never replaced without --force (atomic), the package's data files (resources),
pyHanko's event loop (aio), text made safe to print (safe_text), and which file an internal
error concerns (working). Imports nothing else of sdeval's."""
