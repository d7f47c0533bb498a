"""sdeval's pre-commit hook as a vendor's repository uses it: a .pre-commit-config.yaml naming
`sdeval-validate`, pre-commit installing sdeval into its own environment, and a commit check that
rejects a record whose claim is not established and passes once it is gone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.slow  # pre-commit builds sdeval's environment (about a minute)

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=cwd, check=True, capture_output=True)


def hook_source(tmp_path: Path) -> tuple[Path, str]:
    """This checkout as pre-commit fetches a hook repository: a git repository at a commit. The
    hook file is taken from the working tree, so an uncommitted edit of it is what is tested."""
    source = tmp_path / "sdeval-source"
    git(tmp_path, "clone", "-q", str(ROOT), str(source))
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", source / ".pre-commit-hooks.yaml")
    git(source, "add", ".pre-commit-hooks.yaml")
    git(source, "commit", "-q", "--allow-empty", "-m", "hook under test")
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True, check=True).stdout.strip()
    return source, rev


@pytest.mark.skipif(not PRE_COMMIT.exists(), reason="pre-commit is not installed (scripts/setup test installs it)")
def test_a_vendor_repository_naming_the_hook_rejects_a_record_that_is_not_established(tmp_path):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["sdeval-validate"]

    source, rev = hook_source(tmp_path)
    vendor = tmp_path / "vendor"
    (vendor / "evidence").mkdir(parents=True)
    git(vendor, "init", "-q")
    shutil.copy(EXAMPLES / "complete-offer.yaml", vendor / "evidence" / "offer.yaml")
    shutil.copy(EXAMPLES / "acceptance-only.json", vendor / "evidence" / "acceptance-only.json")
    (vendor / "package.json").write_text('{"name": "not a record"}\n')  # outside `files`: never checked
    config = {"repos": [{"repo": str(source), "rev": rev, "hooks": [{"id": "sdeval-validate", "files": "^evidence/"}]}]}
    (vendor / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(vendor, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))

    def run() -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(PRE_COMMIT), "run", "--all-files", "--color", "never"], cwd=vendor, env=env, capture_output=True, text=True, timeout=600
        )

    rejected = run()
    assert rejected.returncode == 1, rejected.stdout + rejected.stderr
    assert "sdeval validate" in rejected.stdout and "Failed" in rejected.stdout
    assert "evidence/acceptance-only.json: NOT ESTABLISHED" in rejected.stdout
    assert "acceptance-only" in rejected.stdout and "package.json" not in rejected.stdout

    git(vendor, "rm", "-q", "-f", "evidence/acceptance-only.json")
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
