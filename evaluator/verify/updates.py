"""What the revisions after the signed one change, judged before pyHanko's change analysis.

A genuine report is followed only by validation data (a DSS and what it holds) and document
timestamps (their signature, field and widget, the form and page that list them, the catalog and
metadata they update). Any other object a later revision adds or changes fails the signature at
once, named here. So does an object a later revision adds that nothing in the document refers to:
pyHanko's analysis follows the document from its catalog and never meets such an object, so an
update of nothing but orphans (an array, a string, a number, a dictionary of an allowed kind) would
otherwise pass as "only validation data"; and so does a later object that cannot be read, which the
analysis, not reading it either, would pass too.
"""

from __future__ import annotations

from typing import Any

_CATALOG_UPDATES = {"/DSS", "/AcroForm", "/Extensions", "/Metadata", "/Version"}
_PAGE_UPDATES = {"/Annots"}
_NEITHER = "neither validation data nor a document timestamp"


def later_change(reader, sig) -> str | None:
    """The first object a revision after the signed one adds or changes that is not validation data
    or a document timestamp, that cannot be read, or that nothing refers to, in words; None when
    every later object is of those kinds and in use (pyHanko's change analysis then judges them in
    full) or when the revisions' structure cannot be read (the analysis reports that)."""
    try:
        signed, total = sig.signed_revision, reader.xrefs.total_revisions
    except Exception:  # unreadable revisions: leave the verdict to the full analysis
        return None
    for revision in range(signed + 1, total):
        try:
            resolver = reader.get_historical_resolver(revision)
            before = reader.get_historical_resolver(revision - 1)
            refs = sorted(reader.xrefs.explicit_refs_in_revision(revision), key=lambda r: r.idnum)
            root = resolver.root_ref
        except Exception:
            return None
        objects: dict[Any, Any] = {}
        for ref in refs:
            try:
                objects[ref] = resolver(ref)
            except Exception as exc:  # a stream longer than the file, a reference to itself...
                return f"object {ref.idnum} cannot be read ({type(exc).__name__}), {_NEITHER}"
        try:
            changed = _first_change(resolver, before, root, objects) or _first_orphan(resolver, before, objects)
        except Exception as exc:  # what these objects refer to cannot be read
            return f"an object of a later revision cannot be read ({type(exc).__name__}), {_NEITHER}"
        if changed is not None:
            return changed
    return None


def updated_after(reader, sig) -> bool:
    """Whether any revision follows the signed one."""
    try:
        return bool(sig.signed_revision + 1 < reader.xrefs.total_revisions)
    except Exception:  # unreadable revisions: the analysis judges them, so within the budget
        return True


def _first_change(resolver, before, root, objects: dict[Any, Any]) -> str | None:
    from pyhanko.pdf_utils import generic

    dss = _reachable(resolver, resolver.root.get_value_as_reference("/DSS", optional=True))
    form = resolver.root.get_value_as_reference("/AcroForm", optional=True)
    info = resolver.trailer_view.get_value_as_reference("/Info", optional=True)
    for ref, obj in objects.items():
        if ref in (form, info) or ref in dss:
            continue
        # The catalog may gain the DSS and the form; a page, the timestamp's widget. Nothing else.
        allowed = _CATALOG_UPDATES if ref == root else _PAGE_UPDATES if getattr(obj, "get", None) and obj.get("/Type") == "/Page" else None
        if allowed is not None:
            changed = _changed_keys(before, ref, obj) - allowed
            if changed:
                what = "the catalog" if ref == root else f"page object {ref.idnum}"
                return f"it changes {', '.join(sorted(changed))} of {what}"
            continue
        if isinstance(obj, generic.ArrayObject) or not isinstance(obj, generic.DictionaryObject):
            continue  # lists of fields and annotations, numbers (a /Length): _first_orphan checks they are used
        kind = obj.get("/Type")
        if _structural(obj) or kind in ("/Sig", "/DocTimeStamp", "/Metadata") or obj.get("/FT") == "/Sig" or obj.get("/Subtype") == "/Widget":
            continue
        return f"object {ref.idnum} is {_described(obj)}, {_NEITHER}"
    return None


def _first_orphan(resolver, before, objects: dict[Any, Any]) -> str | None:
    """The first object this revision adds that nothing refers to: not reached from the trailer,
    nor from an object this revision changes, through the objects of this revision. (A new object
    is reached only through this revision's objects: the older ones were written before it existed.)"""
    new = {ref for ref in objects if not _existed(before, ref)}
    if not new:
        return None
    todo = [ref for ref in objects if ref not in new] + list(_references(resolver.trailer_view))
    reached: set = set()
    while todo:
        ref = todo.pop()
        if ref in reached or ref not in objects:
            continue
        reached.add(ref)
        todo.extend(_references(objects[ref]))
    for ref in sorted(new - reached, key=lambda r: r.idnum):
        if not _structural(objects[ref]):  # a cross-reference or object stream: the file's own structure
            return f"object {ref.idnum} is {_described(objects[ref])} that nothing in the document refers to, {_NEITHER}"
    return None


def _existed(before, ref) -> bool:
    from pyhanko.pdf_utils import generic

    try:
        return not isinstance(before(ref), generic.NullObject)
    except Exception:
        return False


def _structural(obj) -> bool:
    from pyhanko.pdf_utils import generic

    return isinstance(obj, generic.DictionaryObject) and obj.get("/Type") in ("/XRef", "/ObjStm")


def _described(obj) -> str:
    from pyhanko.pdf_utils import generic

    if isinstance(obj, generic.DictionaryObject):
        kind = obj.get("/Type")
        return ("a stream" if isinstance(obj, generic.StreamObject) else "a dictionary") + (f" of type {kind}" if kind else "")
    kinds: list[tuple[type | tuple[type, ...], str]] = [
        (generic.ArrayObject, "an array"),
        (generic.BooleanObject, "a boolean"),
        (generic.NullObject, "null"),
        ((generic.NumberObject, generic.FloatObject), "a number"),
        ((generic.TextStringObject, generic.ByteStringObject), "a string"),
        (generic.NameObject, "a name"),
        (generic.IndirectObject, "a reference to another object"),
    ]
    return next((what for kind, what in kinds if isinstance(obj, kind)), "an object")


def _references(obj) -> list:
    """The references `obj` holds, directly or inside its direct arrays and dictionaries."""
    from pyhanko.pdf_utils import generic

    found, stack = [], [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, generic.IndirectObject):
            found.append(item.reference)
        elif isinstance(item, generic.DictionaryObject):
            stack.extend(item.raw_get(k) for k in item)
        elif isinstance(item, generic.ArrayObject):
            stack.extend(item)
    return found


def _changed_keys(before, ref, obj) -> set[str]:
    """The keys of a dictionary whose values differ from the previous revision's (all, if it is new)."""
    from pyhanko.pdf_utils import generic

    try:
        old = before(ref)
    except Exception:
        old = None
    if not isinstance(old, generic.DictionaryObject) or not isinstance(obj, generic.DictionaryObject):
        return set(getattr(obj, "keys", lambda: [])())

    # raw_get: an indirect value compares by its reference, so a key pointing elsewhere counts as changed.
    def raw(d, k):
        return d.raw_get(k) if k in d else None

    return {k for k in set(old) | set(obj) if raw(old, k) != raw(obj, k)}


def _reachable(resolver, start) -> set:
    """Every indirect object reachable from `start` (the DSS: certificates, OCSP responses, CRLs, VRI)."""
    seen: set = set()
    todo = [start] if start is not None else []
    while todo and len(seen) < 100_000:
        ref = todo.pop()
        if ref in seen:
            continue
        seen.add(ref)
        todo.extend(_references(resolver(ref)))
    return seen
