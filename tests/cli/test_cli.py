"""The command line as a user meets it: exit codes, one-line errors, the catalog, the form."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, example

from evaluator.engine.record import RECORD_VERSION
from evaluator.rules import REGISTRY


def test_validate_json_is_stable_and_versioned(sdeval):
    doc = sdeval("validate", "--format", "json", example("sd201-offer-a.json")).json()
    assert doc["schema_version"] == "1.3"
    assert doc["tool"]["name"] == "sdeval"
    assert doc["findings"] == [
        {
            "file": str(example("sd201-offer-a.json")),
            "code": "throughput-basis",
            "severity": "error",
            "path": "/claims/0/counted",
            "message": "the claimed 200 tokens/s counts proposed drafts; emitted output over the same 0.100 s interval is 150 tokens/s",
            "claim": "a-200",
            "run": None,
            # JSON files have positions too: the line and column of the value at `path`.
            "line": 127,
            "column": 18,
        }
    ]
    assert doc["summary"] == {"files": 1, "errors": 1, "warnings": 0, "info": 0}


def test_assess_shows_offer_a_emits_150_tokens_per_second(sdeval):
    result = sdeval("assess", example("sd201-offer-a.json"))
    assert result.exit_code == 1
    assert "NOT ESTABLISHED" in result.stdout
    assert "emitted output tokens/s (E / T) = 150 tokens/s" in result.stdout
    doc = sdeval("assess", "--format", "json", example("sd201-offer-a.json")).json()
    claim = doc["files"][0]["claims"][0]
    assert claim["verdict"] == "not-established"
    assert claim["output"] == {"figure": "emitted output tokens/s (E / T)", "value": 150.0, "unit": "tokens/s"}
    assert [f["code"] for f in claim["findings"]] == ["throughput-basis"]


def test_assess_shows_the_vllm_example_readably_and_its_json_exactly(sdeval):
    out = sdeval("assess", example("vllm-docs-ngram.json")).stdout
    assert "draft acceptance rate (A / P) = 0.0775" in out
    assert "mean acceptance length (1 + A / S) = 1.23 tokens/step" in out
    claim = sdeval("assess", "-f", "json", example("vllm-docs-ngram.json")).json()["files"][0]["claims"][0]
    assert claim["computed"]["value"] == 0.07751937984496124  # the JSON keeps the exact figure


def test_assess_figures_are_shown_at_a_precision_people_read(sdeval):
    out = sdeval("assess", example("complete-offer.yaml")).stdout
    assert "computed: output-throughput speedup against the baseline = 2.19x\n" in out
    assert "computed: output-throughput speedup against the baseline = 1.90x\n" in out
    assert "computed: output-throughput speedup against the baseline = 0.984x\n" in out
    assert "computed: emitted output tokens/s (E / T) = 2,226 tokens/s\n" in out
    # The accounting table: one number of decimals per column, whole tokens/s from 100 up.
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith("    eagle3-c")}
    assert rows["eagle3-c1"][:11] == ["8,303", "24,909", "16,274", "8,303", "24,577", "292", "0.653", "2.96", "84", "56", "85"]
    assert rows["eagle3-c64"][8:11] == ["2,226", "1,453", "2,319"]
    assert out.count("why it matters: Proposed drafts") == 0  # the complete offer has no error
    json_doc = sdeval("assess", "-f", "json", example("complete-offer.yaml")).json()
    assert json_doc["files"][0]["claims"][0]["computed"]["value"] == 2.1927110455608543


def test_offer_b_is_established(sdeval):
    doc = sdeval("assess", "--format", "json", example("sd201-offer-b.json")).json()
    assert doc["outcome"] == "established"
    assert doc["files"][0]["claims"][0]["computed"]["value"] == 200.0


def test_several_files_at_once_exit_1_if_any_has_an_error(sdeval):
    result = sdeval("validate", example("sd201-offer-b.json"), example("sd201-offer-a.json"))
    assert result.exit_code == 1
    assert "sd201-offer-b.json: established" in result.stdout


def test_parse_error_names_file_line_and_column(sdeval, tmp_path):
    bad = tmp_path / "offer.json"
    bad.write_text('{"record_version": "1.0",\n  "offer": }')
    result = sdeval("validate", bad)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == f"{bad}:2:12: /: error parse: not valid JSON: Expecting value"


def test_schema_error_in_yaml_names_its_line(sdeval, tmp_path):
    text = example("complete-offer.yaml").read_text().replace("concurrency: 8\n", "concurrency: -8\n", 1)
    bad = tmp_path / "offer.yaml"
    bad.write_text(text)
    result = sdeval("validate", bad)
    assert result.exit_code == 1
    line = next(l for l in result.stdout.splitlines() if "error schema" in l)
    assert "/runs/2/load/concurrency: error schema:" in line
    lineno = int(line.split(":")[1])
    assert text.splitlines()[lineno - 1].strip() == "concurrency: -8"


@pytest.mark.parametrize("args", [("validate", "missing.json"), ("assess", "missing.json")])
def test_missing_file_exits_2_with_one_line(sdeval, args):
    result = sdeval(*args)
    assert result.exit_code == 2
    assert result.stderr == "sdeval: missing.json: no such file\n"


def test_directory_exits_2(sdeval, tmp_path):
    result = sdeval("validate", tmp_path)
    assert result.exit_code == 2
    assert "is a directory" in result.stderr


def test_standard_input(sdeval):
    result = sdeval("validate", "-", input=example("sd201-offer-a.json").read_text())
    assert result.exit_code == 1
    assert result.stdout.startswith("<stdin>:127:18: /claims/0/counted: error throughput-basis")


def test_bad_usage_exits_2(sdeval):
    assert sdeval("validate", "--format", "xml", example("sd201-offer-b.json")).exit_code == 2
    assert sdeval("frobnicate").exit_code == 2


def test_assess_output_file_is_not_overwritten_without_force(sdeval, tmp_path):
    out = tmp_path / "assessment.json"
    out.write_text("keep me")
    result = sdeval("assess", example("sd201-offer-b.json"), "-o", out)
    assert result.exit_code == 2
    assert "already exists; pass --force" in result.stderr
    assert out.read_text() == "keep me"
    assert sdeval("assess", example("sd201-offer-b.json"), "-o", out, "--force").exit_code == 0
    assert json.loads(out.read_text())["outcome"] == "established"


def test_rules_lists_every_code_and_explains_one(sdeval):
    listing = sdeval("rules").stdout
    for code in REGISTRY:
        assert code in listing
    explained = sdeval("rules", "throughput-basis").stdout
    assert explained.startswith("throughput-basis (error)\n")
    assert "Why it matters:" in explained and "Reference:" in explained
    doc = sdeval("rules", "--format", "json").json()
    assert [r["code"] for r in doc["rules"]] == list(REGISTRY)
    unknown = sdeval("rules", "no-such-rule")
    assert unknown.exit_code == 2 and "no rule named 'no-such-rule'" in unknown.stderr


def test_schema_command_prints_the_committed_schema(sdeval):
    assert sdeval("schema").stdout == (ROOT / "schemas" / "evidence-record.schema.json").read_text()


def test_init_writes_a_commented_blank_form_that_parses(sdeval, tmp_path):
    form = tmp_path / "evidence.yaml"
    assert sdeval("init", "-o", form).exit_code == 0
    text = form.read_text()
    assert "# P: candidate tokens proposed by the drafter" in text
    data = yaml.safe_load(text)
    assert data["record_version"] == "1.1"
    assert set(data) == {"record_version", "offer", "configurations", "runs", "claims", "installation_scope"}
    # a blank form is not evidence: validate says which fields to fill, it does not crash
    result = sdeval("validate", form)
    assert result.exit_code == 1
    assert "/offer/vendor: error schema" in result.stdout
    # and init never overwrites what the buyer already typed
    form.write_text("my work")
    assert sdeval("init", "-o", form).exit_code == 2
    assert form.read_text() == "my work"


def test_uncommenting_an_optional_section_of_the_form_gives_valid_yaml(sdeval):
    text = sdeval("init").stdout
    uncommented = "\n".join(line.replace("#- ", "", 1) for line in text.splitlines())
    data = yaml.safe_load(uncommented)
    assert "installation_scope" in data and "relaxed_acceptance" in data["configurations"][0]["proposer"]


def _run_process(*args, **kw):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    return subprocess.run([sys.executable, "-m", "evaluator", *args], capture_output=True, text=True, cwd=ROOT, env=env, **kw)


def test_python_dash_m_and_no_traceback_on_internal_error(tmp_path):
    ok = _run_process("validate", "examples/sd201-offer-b.json")
    assert ok.returncode == 0 and "established" in ok.stdout
    # A record so deep that Python's own JSON decoder gives up must still end in one line.
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    result = _run_process("validate", str(deep))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    assert "error parse:" in result.stdout


def _main_with(monkeypatch, command):
    """`main()` run in this process with `command` in place of the app: (exit code, stderr)."""
    import io

    from evaluator.cli import commands as cli

    stderr = io.StringIO()
    monkeypatch.setattr(cli, "app", command)
    monkeypatch.setattr(sys, "stderr", stderr)
    with pytest.raises(SystemExit) as exited:
        cli.main()
    return exited.value.code, stderr.getvalue()


def test_ctrl_c_that_a_library_turned_into_another_exception_is_still_ctrl_c(monkeypatch):
    """pydantic-core reports a KeyboardInterrupt raised while it builds a schema as a SchemaError:
    that is the user's Ctrl-C (exit 130, quietly), not an internal error."""
    import signal

    def interrupted_inside_a_library():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler runs here
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error building serializer: KeyboardInterrupt") from exc

    assert _main_with(monkeypatch, interrupted_inside_a_library) == (130, "")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # main() put Python's back


def test_an_exception_without_ctrl_c_is_an_internal_error_in_one_line(monkeypatch):
    def broken():
        raise RuntimeError("something sdeval did not expect")

    assert _main_with(monkeypatch, broken) == (2, "sdeval: internal error: RuntimeError: something sdeval did not expect\n")


def test_validate_imports_nothing_only_rendering_needs():
    code = (
        "import sys; from evaluator.cli import main; sys.argv=['sdeval','validate','examples/complete-offer.yaml'];\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy=[m for m in ('weasyprint','pyhanko','jinja2','cryptography','pypdf') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "HEAVY []" in result.stdout


RECORD_WRITER_STARTS = (
    "import sys\n"
    "from evaluator.report import writer\n"
    "started = []\n"
    "real = writer.PdfWriter.__init__\n"
    "def recording(self):\n"
    "    started.append('evaluator.cli.commands' in sys.modules)\n"
    "    real(self)\n"
    "writer.PdfWriter.__init__ = recording\n"
    "sys.argv = ['sdeval', *sys.argv[1:]]\n"
    "from evaluator.cli import main\n"
    "try:\n    main()\nexcept SystemExit as exc:\n    print('EXIT', exc.code)\n"
    "print('STARTED', started)"
)


@pytest.mark.parametrize(
    ("argv", "started"),
    [
        (["render", "examples/sd201-offer-b.json", "-o", "{out}"], "[True]"),
        (["render", "examples/sd201-offer-b.json"], "[]"),  # no -o: a usage error, nothing started
        (["render", "--help"], "[]"),
    ],
)
def test_render_starts_its_pdf_writer_from_the_command_once_its_arguments_are_parsed(tmp_path, argv, started):
    """The writer process is started by the render command itself (an ordinary helper, report/write.py),
    never from the entry point before the command line parses its arguments."""
    args = [a.format(out=tmp_path / "r.pdf") for a in argv]
    result = subprocess.run([sys.executable, "-c", RECORD_WRITER_STARTS, *args], capture_output=True, text=True, cwd=ROOT)
    assert f"STARTED {started}" in result.stdout, result.stdout[-300:] + result.stderr[-300:]
    assert (tmp_path / "r.pdf").exists() == (started == "[True]")


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["validate", "--help"]])
def test_version_and_help_load_no_model_and_no_rule(argv):
    """Naming the versions or printing help needs neither the record models nor the catalog. (A
    command's own help loads pydantic all the same: typer's parameter adapters import it.)"""
    watched = ("evaluator.engine.record", "evaluator.rules") + (("pydantic",) if argv[0].startswith("--") else ())
    code = (
        f"import sys; from evaluator.cli import main; sys.argv=['sdeval', *{argv!r}];\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', sorted(m for m in sys.modules if m.startswith({watched!r})))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "LOADED []" in result.stdout, result.stdout[-300:]


# ------------------------------------------------------------------ messages a writer can act on


def misspelt_record(tmp_path):
    """SD-201 offer B with a bad date, a misspelt field and a bad id, in that order in the file."""
    doc = json.loads(example("sd201-offer-b.json").read_text())
    doc["offer"]["date"] = "2026/10/20"
    run = doc["runs"][0]
    run["arangement"] = run.pop("arrangement")
    doc["claims"][0]["id"] = "b 200"
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(doc, indent=2))
    return path


def test_schema_errors_name_the_place_once_in_file_order_with_did_you_mean(sdeval, tmp_path):
    path = misspelt_record(tmp_path)
    result = sdeval("validate", path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f'{path}:6:13: /offer/date: error schema: must be a date written YYYY-MM-DD (got "2026/10/20")',
        f'{path}:117:21: /runs/0/arangement: error schema: unknown field "arangement": did you mean "arrangement"? '
        "(arrangement is required, and missing)",
        f"{path}:122:13: /claims/0/id: error schema: must be an id: letters, digits, '.', '_' and '-', starting with "
        'a letter or digit (got "b 200")',
        f"{path}: INVALID RECORD (3 errors, 0 warnings, 0 info)",
    ]
    findings = sdeval("validate", "-f", "json", path).json()["findings"]
    assert [(f["path"], f["line"], f["column"]) for f in findings] == [
        ("/offer/date", 6, 13),
        ("/runs/0/arangement", 117, 21),
        ("/claims/0/id", 122, 13),
    ]


def test_a_missing_field_is_placed_at_its_object(sdeval, tmp_path):
    doc = json.loads(example("sd201-offer-b.json").read_text())
    del doc["offer"]["vendor"]
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(doc, indent=2))
    line = sdeval("validate", path).stdout.splitlines()[0]
    assert line == f"{path}:3:12: /offer/vendor: error schema: required field is missing"


def test_why_it_matters_gives_the_rules_rationale_once_per_file(sdeval, monkeypatch):
    monkeypatch.setenv("SDEVAL_TEXT_WIDTH", "100")  # as a 100-column terminal shows it
    out = sdeval("assess", example("sd201-offer-a.json")).stdout
    assert "      why it matters: Proposed drafts include tokens the target rejected, and accepted drafts leave\n" in out
    assert out.count("why it matters:") == 1


def test_rule_references_can_be_followed_by_a_reader(sdeval):
    from support.markdown_pages import headings, page

    for r in sdeval("rules", "--format", "json").json()["rules"]:
        assert "Brief" not in r["reference"], r["code"]
        # each reference is a public address, the schema file shipped, or a section of the README or
        # of a page under docs/ ("docs/claims.md, The checklist behind the rules, item 3 (...)")
        for part in r["reference"].split("; "):
            name, _, rest = part.partition(", ")
            if name == "README" or re.fullmatch(r"docs/[\w-]+\.md", name):
                path = ROOT / ("README.md" if name == "README" else name)
                assert path.is_file(), (r["code"], part)
                section = rest.split(", item")[0].split(" (")[0]
                assert section in headings(page(path)), (r["code"], part)
                # and each checklist item it names is one of the list's items
                items = re.sub(r"\([^)]*\)", "", rest.removeprefix(section))
                for n in re.findall(r"\d+", items):
                    assert re.search(rf"^{n}\. \*\*", page(path), re.M), (r["code"], part, n)
            else:
                assert "https://" in part or part.startswith(("schemas/", "RFC 8259")), (r["code"], part)


# ------------------------------------------------------------------ the command line itself


@pytest.mark.parametrize("command", ["validate", "assess", "render", "import", "claim", "init", "schema", "form", "rules", "keygen", "verify"])
def test_help_speaks_plainly_and_answers_to_dash_h(sdeval, command):
    result = sdeval(command, "-h")
    assert result.exit_code == 0
    assert result.stdout == sdeval(command, "--help").stdout
    usage = result.stdout.splitlines()[0]
    assert "{" not in usage and "]..." not in usage
    for leak in ("<list[str]>", "<str>", "<int", "<path>", "x>=1"):
        assert leak not in result.stdout, (command, leak)


def test_usage_lines(sdeval):
    assert sdeval("validate", "-h").stdout.startswith("Usage: sdeval validate [OPTIONS] FILE...\n")
    assert sdeval("import", "-h").stdout.startswith("Usage: sdeval import [OPTIONS] FORMAT FILE...\n")
    assert sdeval("rules", "-h").stdout.startswith("Usage: sdeval rules [OPTIONS] [CODE]\n")
    assert "  -o, --output FILE " in sdeval("render", "-h").stdout
    assert "  -f, --format [text|json|sarif|github|junit|gitlab|markdown]" in sdeval("assess", "-h").stdout
    assert "  -f, --format [text|json] " in sdeval("rules", "-h").stdout


def test_command_summaries_are_never_cut_off(sdeval):
    listing = sdeval("--help").stdout
    commands = listing[listing.index("Commands:") :]
    assert "..." not in commands
    assert "  render     Write the PDF/A report, inputs attached, signed with a key.\n" in commands
    assert "  reference  Independent results to set beside each claim.\n" in commands


def test_version_and_shell_completion(sdeval):
    from evaluator import __version__

    version = sdeval("--version")
    assert version.exit_code == 0 and version.stdout.startswith(f"sdeval {__version__} (reads records 1.0-1.3, writes {RECORD_VERSION}; ")
    # The way the README documents it, which does not depend on detecting the shell.
    env = {**os.environ, "_SDEVAL_COMPLETE": "source_bash"}
    script = subprocess.run([str(Path(sys.executable).parent / "sdeval")], capture_output=True, text=True, env=env)
    assert script.returncode == 0 and "_SDEVAL_COMPLETE=complete_bash" in script.stdout
    env.update(_SDEVAL_COMPLETE="complete_bash", COMP_WORDS="sdeval assess --fo", COMP_CWORD="2")
    words = subprocess.run([str(Path(sys.executable).parent / "sdeval")], capture_output=True, text=True, env=env)
    assert words.stdout.split() == ["--format", "--force"]


def test_version_names_the_records_it_reads_and_writes_as_the_code_and_the_changelog_do(sdeval):
    # Before: "record format 1.1" alone, while measure wrote 1.2 and every command read 1.0 to 1.3.
    import typing

    from evaluator import MEASURED_RECORD_VERSION, READ_RECORD_VERSIONS, RULE_CATALOG_VERSION, __version__
    from evaluator.engine.record import READ_VERSIONS, EvidenceRecord
    from evaluator.measure.build import RECORD_VERSION as MEASURE_WRITES

    # The constants --version prints are the ones the reader and measure use.
    assert READ_RECORD_VERSIONS == READ_VERSIONS
    assert READ_RECORD_VERSIONS == typing.get_args(EvidenceRecord.model_fields["record_version"].annotation)
    assert MEASURED_RECORD_VERSION == MEASURE_WRITES
    assert sdeval("--version").stdout == (
        f"sdeval {__version__} (reads records 1.0-1.3, writes {RECORD_VERSION}; "
        f"measure writes {MEASURE_WRITES}; rule catalog {RULE_CATALOG_VERSION})\n"
    )
    # ... and what the newest CHANGELOG section says this release reads and writes.
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.split(r"^## ", changelog, flags=re.M)[1]
    reads = ", ".join(READ_RECORD_VERSIONS[:-1]) + " and " + READ_RECORD_VERSIONS[-1]
    assert f"Reads records {reads}, writes {RECORD_VERSION} (`sdeval measure` writes {MEASURE_WRITES})" in newest


def test_an_unknown_choice_is_answered_plainly(sdeval):
    result = sdeval("assess", "--format", "xml", example("sd201-offer-b.json"))
    assert result.exit_code == 2
    assert (
        result.stderr.splitlines()[-1]
        == "Error: Invalid value for '--format' / '-f': 'xml' is not one of: text, json, sarif, github, junit, gitlab, markdown."
    )


def test_schema_can_be_written_to_a_file(sdeval, tmp_path):
    out = tmp_path / "record.schema.json"
    assert sdeval("schema", "-o", out).exit_code == 0
    assert out.read_text() == (ROOT / "schemas" / "evidence-record.schema.json").read_text()
    refused = sdeval("schema", "-o", out)
    assert (refused.exit_code, refused.stderr) == (2, f"sdeval: {out}: already exists; pass --force to replace it\n")
    assert sdeval("schema", "--requirements").stdout == (ROOT / "schemas" / "requirements.schema.json").read_text()


@pytest.mark.parametrize(
    "args",
    [
        ("assess", "EXAMPLE", "-o"),
        ("assess", "EXAMPLE", "--force", "-o"),
        ("init", "-o"),
        ("form", "-o"),
        ("schema", "-o"),
        ("render", "EXAMPLE", "-o"),
        ("render", "EXAMPLE", "--force", "-o"),
    ],
)
def test_a_directory_is_never_an_output_file_with_or_without_force(sdeval, tmp_path, args):
    args = [str(example("sd201-offer-b.json")) if a == "EXAMPLE" else a for a in args]
    result = sdeval(*args, tmp_path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"sdeval: {tmp_path}: is a directory; give the output a file name\n"


def test_every_failing_assess_says_why_in_one_line(sdeval):
    one = sdeval("assess", example("sd201-offer-a.json"))
    assert one.exit_code == 1
    assert one.stderr == f"sdeval: exit 1: {example('sd201-offer-a.json')} has 1 error finding\n"
    two = sdeval("assess", "-f", "json", example("sd201-offer-b.json"), example("sd201-offer-a.json"), example("unstated-load.json"))
    assert two.stderr == "sdeval: exit 1: 2 of 3 files have error findings (4 error findings in all)\n"
    fit = sdeval("assess", example("complete-offer.yaml"), "-r", example("requirements.yaml"))
    assert fit.stderr == f"sdeval: exit 1: no offer meets every requirement of {example('requirements.yaml')}\n"
    assert sdeval("assess", example("sd201-offer-b.json")).stderr == ""


def test_the_wrong_kind_of_file_says_what_it_is_and_which_command_takes_it(sdeval, tmp_path):
    """A tool's output, a record and a profile, each given where another is expected: one line each
    (a vllm bench result given to assess was 39 schema errors)."""
    bench = tmp_path / "bench.json"
    bench.write_text('{"duration": 10.0, "completed": 8, "total_output_tokens": 128, "num_prompts": 8}')
    record = example("sd201-offer-a.json")
    cases = [
        (
            ("assess", bench),
            f"sdeval: {bench}: is vllm-bench output, not an evidence record: import its runs with "
            "`sdeval import vllm-bench bench.json --into RECORD` (or without --into to see them)",
        ),
        (("validate", bench), None),
        (
            ("assess", example("sd201-offer-b.json"), "-r", record),
            f"sdeval: {record}: is an evidence record, not a requirements profile: give it as a file to judge "
            "(`sdeval assess sd201-offer-a.json --requirements PROFILE`)",
        ),
        (
            ("import", "vllm-bench", record, "--arrangement", "target-only"),
            f"sdeval: {record}: lacks duration, completed, total_output_tokens, so it is not vllm-bench output; it is an evidence record "
            "(`sdeval assess sd201-offer-a.json` judges it; `--into sd201-offer-a.json` adds imported runs to it)",
        ),
        (
            ("verify", record),
            f"sdeval: {record}: not a PDF (no %PDF- header); it is an evidence record (`sdeval render` makes a signed report of it)",
        ),
    ]
    for args, line in cases:
        result = sdeval(*args)
        assert result.exit_code == 2, (args, result.stdout)
        assert len(result.stderr.splitlines()) == 1, result.stderr
        if line is not None:
            assert result.stderr == line + "\n"


def test_did_you_mean_for_enum_values_values_with_units_commands_and_rules(sdeval, tmp_path):
    record = yaml.safe_load(example("complete-offer.yaml").read_text())
    record["runs"][0]["arrangement"] = "target_only"
    record["claims"][0].update(kind="speed-up", value="2.19x")
    path = tmp_path / "typos.json"
    path.write_text(json.dumps(record))
    messages = {f["path"]: f["message"] for f in sdeval("validate", path, "--format", "json").json()["findings"]}
    assert messages["/runs/0/arrangement"] == 'must be "speculative" or "target-only" (got "target_only"; did you mean "target-only"?)'
    assert messages["/claims/0/kind"].endswith('(got "speed-up"; did you mean "speedup"?)')
    assert messages["/claims/0/value"] == 'must be a number (got "2.19x"; write the number, 2.19, and the unit apart: unit: "x")'
    assert (
        sdeval("rules", "acceptence-only").stderr
        == "sdeval: no rule named 'acceptence-only'; did you mean 'acceptance-only'? (`sdeval rules` lists them)\n"
    )
    assert "Did you mean 'assess'?" in sdeval("asess", path).stderr
