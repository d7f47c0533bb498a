"""Objects read from a PDF's object streams once per stream, not once per object.

pyHanko's reader (0.38) decodes an object stream and scans its offset table from the start for
every object it takes from it. The change analysis behind `verify` visits every object of a report
that has an incremental update after its signature (about 3,500 in a tagged report, most of them
in a few streams), so a tampered report took 25 times an intact one's time to verify, and a folder
of them stalled `archive verify`. This keeps, per reader, each stream's decoded bytes and offset
table, so the analysis is linear in the objects. What is read is exactly what pyHanko reads: the
same stream object, the same decoding, the same object parser; anything unusual (a damaged
header, a strict reader) goes to pyHanko's own code unchanged.
"""

from __future__ import annotations

from io import BytesIO

_installed = False
pyhanko_get_object_from_stream = None  # pyHanko's own, kept once install() replaced it


def install() -> None:
    """Replace PdfFileReader._get_object_from_stream by the caching one (once per process)."""
    global _installed, pyhanko_get_object_from_stream
    if _installed:
        return
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.decode_limits import DecodePurpose
    from pyhanko.pdf_utils.reader import PdfFileReader

    original = PdfFileReader._get_object_from_stream

    def _table(reader, stmnum: int):
        """(decoded bytes, /First, {object number: offset}, /N) of one object stream, or None."""
        cache = reader.__dict__.setdefault("_sdeval_object_streams", {})
        if stmnum in cache:
            return cache[stmnum]
        entry = None
        try:
            stream = generic.Reference(stmnum, 0, reader).get_object()
            if isinstance(stream, generic.StreamObject) and stream.get("/Type") == "/ObjStm":
                data = stream.read_data(DecodePurpose.OBJECT_STREAM)
                count, first = int(stream["/N"]), int(stream["/First"])
                numbers = data[:first].split()
                if count >= 0 and len(numbers) >= 2 * count:
                    offsets: dict[int, int] = {}
                    for i in range(count):
                        offsets.setdefault(int(numbers[2 * i]), int(numbers[2 * i + 1]))
                    entry = (data, first, offsets, count)
        except Exception:  # anything odd: pyHanko's own reading says what is wrong
            entry = None
        cache[stmnum] = entry
        return entry

    def _get_object_from_stream(self, idnum, stmnum, idx):
        table = None if self.strict else _table(self, stmnum)
        if table is None or idnum not in table[2] or not 0 <= idx < table[3]:
            return original(self, idnum, stmnum, idx)
        data, first, offsets, _ = table
        stream_data = BytesIO(data)
        stream_data.seek(first + offsets[idnum])
        try:
            return generic.read_object(stream_data, generic.Reference(idnum, 0, self))
        except Exception:
            return original(self, idnum, stmnum, idx)

    pyhanko_get_object_from_stream = original
    PdfFileReader._get_object_from_stream = _get_object_from_stream  # type: ignore[method-assign]  # the patch this module exists for
    _installed = True
