"""The signed PDF assessment: render (Jinja2 -> WeasyPrint PDF/A-3a, tagged, with the inputs attached),
sign (pyHanko PAdES B-B) and verify (signature, attachment hashes, re-assessment).

Each concern is its own module; WeasyPrint and pyHanko are imported only inside them, and
the CLI imports these modules only from the commands that need them.
"""
