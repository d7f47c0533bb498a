"""`sdeval measure`'s command line speaks as every other sdeval command: click's usage form, one
Error line, "did you mean" for a misspelt option or arm name, exit 2, nothing written."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        ([], "Missing option '-o' / '--output'."),
        (["--concurency", "3", "-o", "r.json"], "No such option: --concurency Did you mean --concurrency?"),
        (["--conc", "3", "-o", "r.json"], "No such option: --conc Did you mean --concurrency?"),  # no abbreviations, as click
        (["-o", "r.json", "--endpoint", "chatt"], "Invalid value for '--endpoint': 'chatt' is not one of: chat, completions."),
        (["-o", "r.json", "--percentile-method", "nearest"], "Invalid value for '--percentile-method': 'nearest' is not one of: linear, lower."),
        (["-o", "r.json", "--repetitions", "abc"], "Invalid value for '--repetitions': 'abc' is not a valid integer."),
        (["-o", "r.json", "--metrics", "http://x/metrics"], "--metrics must follow the --arm it belongs to"),
        (["-o", "r.json", "stray"], "Got unexpected extra argument (stray)"),
    ],
)
def test_a_command_line_measure_cannot_read_is_said_as_the_other_commands_say_it(tmp_path, monkeypatch, sdeval, argv, error):
    monkeypatch.chdir(tmp_path)
    result = sdeval("measure", *argv)
    assert result.exit_code == 2
    assert result.stderr == f"Usage: sdeval measure [OPTIONS]\nTry 'sdeval measure -h' for help.\n\nError: {error}\n"
    assert not list(tmp_path.iterdir())


def test_a_misspelt_arm_name_gets_a_did_you_mean(tmp_path, sdeval):
    result = sdeval("measure", "--arm", "speculatve=http://127.0.0.1:9", "-o", tmp_path / "r.json")
    assert result.exit_code == 2
    assert (
        result.stderr
        == "sdeval: --arm speculatve: did you mean speculative? Or say whether it is speculative or target-only with --arrangement after it\n"
    )


def test_every_option_has_help(sdeval):
    from evaluator.measure.arguments import parser

    assert [a.option_strings for a in parser()._actions if not a.help] == []
    shown = sdeval("measure", "-h").stdout
    for option in ("--max-tokens", "--temperature", "--top-p", "--seed", "--endpoint", "--percentile-method"):
        assert option in shown
