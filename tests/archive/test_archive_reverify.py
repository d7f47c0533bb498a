"""Issue 43: re-verification shared among machines (`verify --shard i/N`, each share's result in
the log) and resumed (`verify --since DATE`: only reports not passed since then)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import pytest

pytestmark = pytest.mark.archive


def logged_verifies(archive) -> list[dict]:
    entries = archive.run("log", "-f", "json").json()["entries"]
    return [e["detail"] for e in entries if e["action"] == "verify"]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_shards_share_the_reports_and_each_logs_its_share(archive, reports):
    assert archive.run("add", *[reports.signed() for _ in range(3)], reports.signed("offer-a")).exit_code == 0
    first = archive.run("verify", "--shard", "1/2", "-f", "json")
    second = archive.run("verify", "--shard", "2/2", "-f", "json")
    assert (first.exit_code, second.exit_code) == (0, 0)
    assert [r["id"] for r in first.json()["reports"]] == [1, 3]
    assert [r["id"] for r in second.json()["reports"]] == [2, 4]
    shares = logged_verifies(archive)
    assert [(d["shard"], d["reports"], d["failed"]) for d in shares] == [("1/2", 2, []), ("2/2", 2, [])]
    # every report's last verification now says passed: the shares covered the archive
    listed = archive.run("list", "-f", "json").json()["reports"]
    assert [r["last_verification"]["result"] for r in listed] == ["passed"] * 4


@pytest.mark.parametrize("shard", ["3/2", "0/2", "two", "1/0"])
def test_a_shard_that_is_not_i_of_n_is_refused(archive, shard):
    out = archive.run("verify", "--shard", shard)
    assert out.exit_code == 2
    assert out.stderr.startswith(f"sdeval: --shard {shard}")


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_since_verifies_only_what_has_not_passed_since(archive, reports):
    second = reports.signed("offer-a")
    assert archive.run("add", reports.signed(), second).exit_code == 0
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    # admission verified them in full today: nothing left to verify since today
    assert json.loads(archive.run("verify", "--since", today, "-f", "json").stdout)["summary"]["reports"] == 0
    tomorrow = (dt.date.fromisoformat(today) + dt.timedelta(days=1)).isoformat()
    assert [r["id"] for r in archive.run("verify", "--since", tomorrow, "-f", "json").json()["reports"]] == [1, 2]
    assert logged_verifies(archive)[-1]["since"] == f"{tomorrow}T00:00:00+00:00"
    # report 2 fails a verification: from then on, it is the one not passed since today
    digest = hashlib.sha256(second.read_bytes()).hexdigest()
    path = archive.root / "objects" / digest[:2] / f"{digest}.pdf"
    path.chmod(0o644)
    path.write_bytes(b"not the report")
    assert archive.run("verify", "2").exit_code == 1
    again = archive.run("verify", "--since", today, "-f", "json")
    assert again.exit_code == 1
    assert [r["id"] for r in again.json()["reports"]] == [2]
