"""`sdeval form`: one self-contained HTML page to fill an evidence record in a browser.

fields.py turns the record's JSON Schema into a tree of form fields; page.py renders
that tree through the Jinja2 templates in templates/form/, with the schema, the rule
catalog, the vendored validator and the page's script embedded, so the file works
offline when opened from disk.
"""
