"""The pipeline, once: input files -> loaded -> assessed -> [judged against a buyer's profile]
-> an `Assessed` result with its JSON document and its exit code.

`sdeval validate`, `assess` and `render`, verify's reproduction check and the archive all run
the pipeline through this module; present/ and report/ receive the result and
only present it. A file that cannot be read at all (missing, too large, a bad profile) stops
the run with `CannotRun`, one line for `sdeval: ...` and exit 2.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._infra.exit_codes import EXIT_FINDINGS, EXIT_OK
from ._infra.working import working_on
from .engine.loader import DEFAULT_MAX_BYTES, LoadedFile, UnreadableFile, load_bytes, load_file
from .rules.assess import assess
from .rules.results import FileAssessment, Finding, exit_code

if TYPE_CHECKING:
    from .buyer.results import Comparison
    from .references.document import ReferencesInput
    from .references.judge import ReferenceComparison


class CannotRun(Exception):
    """The run cannot go on (exit 2); the message names the file and, where known, the place."""


@dataclass(frozen=True)
class ProfileInput:
    """A buyer's requirements profile: the name it was given as and the exact bytes judged
    (a PDF report embeds these bytes, and verify judges them again)."""

    path: str
    raw: bytes


@dataclass
class Assessed:
    loaded: list[LoadedFile]
    results: list[FileAssessment]
    profile: ProfileInput | None = None
    comparison: Comparison | None = None
    # A report's name for an input -> the path the user typed (assess_paths(for_report=True)), so
    # what the terminal says names the user's files while the report keeps the names alone.
    given_as: dict[str, str] = dataclasses.field(default_factory=dict)
    # `--references`: the files of independent results (their exact bytes) and every claim beside them.
    references: list[ReferencesInput] = dataclasses.field(default_factory=list)
    reference_comparison: ReferenceComparison | None = None

    @property
    def exit_code(self) -> int:
        """With a profile, the buyer's question: 0 when some offer meets every requirement.
        Without, 0 when no file has an error finding (parse and schema included)."""
        if self.comparison is not None:
            return EXIT_OK if self.comparison.meets_all else EXIT_FINDINGS
        return exit_code(self.results)

    def exit_reason(self) -> str | None:
        """Why the exit status is not 0, in one line (None when it is 0)."""
        if self.exit_code == EXIT_OK:
            return None
        if self.comparison is not None:
            return f"exit 1: no offer meets every requirement of {self.given_as.get(self.comparison.profile_file, self.comparison.profile_file)}"
        failing = [r for r in self.results if r.count("error")]
        errors = sum(r.count("error") for r in failing)
        findings = f"{errors} error finding{'s' * (errors != 1)}"
        if len(self.results) == 1:
            return f"exit 1: {self.given_as.get(failing[0].file, failing[0].file)} has {findings}"
        return f"exit 1: {len(failing)} of {len(self.results)} files have error findings ({findings} in all)"

    @functools.cached_property
    def document(self) -> dict[str, Any]:
        """Exactly what `sdeval assess [--requirements PROFILE] -f json` prints: built here once, the
        first time a report, a reproduction or the archive needs it, and read by all of them."""
        from .present.json_document import document

        doc = document(self.results, full=True, comparison=self.comparison)
        if self.reference_comparison is not None:
            doc["references"] = self.reference_comparison.as_dict()
        return doc


def preload() -> None:
    """Import everything the pipeline may need, profile judging included: a caller that forks
    workers (verifying many reports) pays for the imports once, before forking."""
    from .buyer import judge, profile  # noqa: F401
    from .present import json_document as json_report  # noqa: F401


def load_inputs(paths: list[str], max_size: int = DEFAULT_MAX_BYTES) -> list[LoadedFile]:
    """Every record file read and parsed (a parse problem is a finding, not a stop); `-` is standard input."""
    loaded = []
    for path in paths:
        try:
            with working_on(path):
                loaded.append(load_file(path, max_size))
        except UnreadableFile as exc:
            raise CannotRun(str(exc)) from None
    return loaded


def read_profile(path: str, max_size: int = DEFAULT_MAX_BYTES) -> ProfileInput:
    """Read a requirements profile once, so the bytes judged are the bytes a report embeds."""
    from .engine.loader import read_bytes, read_stdin

    try:
        if path == "-":
            return ProfileInput("<stdin>", read_stdin(max_size))
        return ProfileInput(path, read_bytes(path, max_size))
    except UnreadableFile as exc:
        raise CannotRun(str(exc)) from None


def assess_loaded(
    loaded: list[LoadedFile], profile: ProfileInput | None = None, *, profiles_allowed: bool = False, references: list[ReferencesInput] | None = None
) -> Assessed:
    """Every file assessed; with `profiles_allowed` (validate), a requirements profile among them is
    checked as a profile, otherwise it stops the run: it belongs after --requirements. With
    `references`, every claim is set beside the independent rows at its key (never fetched here)."""
    results = []
    for item in loaded:
        with working_on(item.path):
            results.append(_assess_one(item, profiles_allowed))
    compared = None
    if references:
        from .references.judge import compare

        compared = compare(results, references)
    if profile is None:
        return Assessed(loaded, results, profile, None, references=list(references or []), reference_comparison=compared)
    with working_on(profile.path):
        return Assessed(loaded, results, profile, judge(results, profile), references=list(references or []), reference_comparison=compared)


def read_references(paths: list[str], max_size: int = DEFAULT_MAX_BYTES) -> list[ReferencesInput]:
    """Each references file read once and checked, so the bytes compared are the bytes a report embeds."""
    from .engine.loader import read_bytes
    from .references.document import read_references as parse
    from .references.formats import ReferenceProblem

    out = []
    for path in paths:
        try:
            out.append(parse(path, read_bytes(path, max_size)))
        except UnreadableFile as exc:
            raise CannotRun(str(exc)) from None
        except ReferenceProblem as exc:
            raise CannotRun(str(exc)) from None
    return out


def _not_tool_output(item: LoadedFile) -> None:
    """A benchmark tool's output given where a record is expected stops the run in one line, naming
    the tool and the command that takes it (its 40 schema errors would hide what it is)."""
    if not isinstance(item.data, dict | list) or (isinstance(item.data, dict) and "record_version" in item.data):
        return
    from .importers.sniff import sniff_text

    fmt = sniff_text(item.raw[: 256 * 1024].decode("utf-8", errors="replace"))
    if fmt is not None:
        name = os.path.basename(item.path)
        files = "BEFORE AFTER" if fmt.endswith("-metrics") else name
        raise CannotRun(
            f"{item.path}: is {fmt} output, not an evidence record: import its runs with "
            f"`sdeval import {fmt} {files} --into RECORD` (or without --into to see them)"
        )


def looks_like_profile(data: object) -> bool:
    """A requirements profile, told from an evidence record by what it holds. Here rather than in
    buyer/profile.py, so that validating a record builds none of the profile's models."""
    return isinstance(data, dict) and "record_version" not in data and ("requirements_version" in data or "buyer" in data)


# A measure --configuration file holds some of a record configuration's own fields, and nothing of
# a record's (offer, runs, claims) or of a profile's.
_CONFIGURATION_FIELDS = frozenset({"target", "proposer", "numerics", "sampling", "runtime", "hardware", "parallelism"})
_RECORD_FIELDS = frozenset({"record_version", "offer", "configurations", "runs", "claims"})


def looks_like_configuration(data: object) -> bool:
    """A `sdeval measure --configuration` file, told from a record and a profile by its fields."""
    return (
        isinstance(data, dict) and bool(_CONFIGURATION_FIELDS & data.keys()) and not (_RECORD_FIELDS & data.keys()) and not looks_like_profile(data)
    )


def _configuration_file(item: LoadedFile) -> FileAssessment:
    """A --configuration file checked as `sdeval measure` checks it before sending anything: the
    configuration it makes (with the endpoint's model and the sampling measure sends) against the
    record's configuration schema, each problem at its place in the file."""
    from .engine.configuration_file import file_problems

    proposer = item.data.get("proposer") if isinstance(item.data, dict) else None
    arrangement = "target-only" if isinstance(proposer, dict) and proposer.get("method") == "none" else "speculative"
    problems = file_problems(item, "configuration", arrangement, {"temperature": 0.0, "top_p": 1.0, "seed": 0})
    findings = [Finding("schema", "error", p.path, p.message, line=p.line, column=p.column) for p in problems]
    return FileAssessment(file=item.path, sha256=item.sha256, findings=findings, kind="configuration")


def _assess_one(item: LoadedFile, profiles_allowed: bool) -> FileAssessment:
    if profiles_allowed and item.problem is None and looks_like_configuration(item.data):
        return _configuration_file(item)
    if not looks_like_profile(item.data):
        _not_tool_output(item)
        return assess(item)
    if not profiles_allowed:
        raise CannotRun(
            f"{item.path}: is a requirements profile, not an evidence record: give it with --requirements "
            f"(`sdeval validate {item.path}` checks it on its own)"
        )
    from .buyer.profile import profile_problems

    _, problems = profile_problems(item)
    findings = [Finding("schema", "error", p.path, p.message, line=p.line, column=p.column) for p in problems]
    return FileAssessment(file=item.path, sha256=item.sha256, findings=findings, kind="requirements-profile")


def assess_paths(
    paths: list[str],
    *,
    profile: str | None = None,
    max_size: int = DEFAULT_MAX_BYTES,
    profiles_allowed: bool = False,
    for_report: bool = False,
    references: list[str] | None = None,
) -> Assessed:
    """The whole pipeline from paths as typed on the command line. `for_report`: each input is
    assessed under its file name alone (see report_names), as a signed report names it."""
    loaded = load_inputs(paths, max_size)
    given = None if profile is None else read_profile(profile, max_size)
    independent = read_references(references, max_size) if references else []
    if for_report:
        typed = [item.path for item in loaded] + ([given.path] if given else []) + [r.path for r in independent]
        names = report_names(typed)
        records, rest = names[: len(loaded)], names[len(loaded) :]
        renamed = None if given is None else ProfileInput(rest.pop(0), given.raw)
        named = [dataclasses.replace(r, path=name) for r, name in zip(independent, rest)]
        try:
            assessed = assess_loaded(
                [dataclasses.replace(item, path=name) for item, name in zip(loaded, records)],
                renamed,
                profiles_allowed=profiles_allowed,
                references=named,
            )
            assessed.given_as = dict(zip(names, typed))
            assessed.document  # noqa: B018 (built here, once: the report embeds it and renders from it, never asking back)
            return assessed
        except CannotRun:
            assess_loaded(loaded, given, profiles_allowed=profiles_allowed, references=independent)  # raises it again, naming the user's files
            raise
    return assess_loaded(loaded, given, profiles_allowed=profiles_allowed, references=independent)


def report_names(paths: list[str]) -> list[str]:
    """What a signed report calls its inputs: the file name only, never the folders of the assessor's
    machine (a report is kept for years and shown to others). A name given twice gets "-2", "-3"
    before its extension, as its attachment does."""
    taken: set[str] = set()
    out = []
    for path in paths:
        base = path if path == "<stdin>" else (os.path.basename(path.rstrip("/\\")) or path)
        name, n = base, 2
        while name in taken:
            stem, dot, ext = base.rpartition(".")
            name = f"{stem}-{n}.{ext}" if dot and stem else f"{base}-{n}"
            n += 1
        taken.add(name)
        out.append(name)
    return out


def reassess(records: list[tuple[str, bytes]], profile: ProfileInput | None = None, references: list[tuple[str, bytes]] | None = None) -> Assessed:
    """The pipeline over bytes kept elsewhere (a report's attachments, an archive), each under the
    name it was first assessed by, so the result compares with the one made then."""
    independent = []
    if references:
        from .references.document import read_references as parse
        from .references.formats import ReferenceProblem

        try:
            independent = [parse(name, raw) for name, raw in references]
        except ReferenceProblem as exc:
            raise CannotRun(str(exc)) from None
    return assess_loaded([load_bytes(name, raw) for name, raw in records], profile, references=independent)


def judge(results: list[FileAssessment], profile: ProfileInput) -> Comparison:
    """Every offer judged against the profile; a profile that cannot be used is CannotRun."""
    from .buyer.judge import BaselineNotGiven, compare
    from .buyer.profile import RequirementsError

    model, sha256 = check_profile(profile)
    try:
        return compare(model, results, profile.path, sha256)
    except (RequirementsError, BaselineNotGiven) as exc:
        raise CannotRun(str(exc)) from None


def check_profile(profile: ProfileInput):
    """The profile's model and SHA-256; CannotRun, in one line, for another kind of file or a
    profile that cannot be used (`sdeval serve -r` checks it before it listens)."""
    from .buyer.profile import RequirementsError, load_requirements_bytes

    try:
        return load_requirements_bytes(profile.path, profile.raw)
    except RequirementsError as exc:
        # Only a file that is no usable profile is asked what it is instead (a record, a tool's
        # output), so the line names what was given rather than its schema errors.
        raise CannotRun(_other_kind(profile) or str(exc)) from None


def _other_kind(profile: ProfileInput) -> str | None:
    """Why a file given as a requirements profile is another kind of file, or None."""
    from .importers.sniff import own_kind_of_text, sniff_text

    head = profile.raw[: 256 * 1024].decode("utf-8", errors="replace")
    if own_kind_of_text(head) == "record":
        return (
            f"{profile.path}: is an evidence record, not a requirements profile: give it as a file to judge "
            f"(`sdeval assess {os.path.basename(profile.path)} --requirements PROFILE`)"
        )
    if own_kind_of_text(head) is None and (fmt := sniff_text(head)) is not None:
        return f"{profile.path}: is {fmt} output, not a requirements profile: import its runs with `sdeval import {fmt}`"
    return None
