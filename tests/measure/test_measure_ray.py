"""`sdeval measure --ray`: a real two-node Ray cluster, confined to loopback.

The whole cluster, the simulators it measures and `sdeval measure` itself run in a network namespace
this test makes, whose only interface is loopback: no packet can leave it, Ray's own address lookup
finds 127.0.0.1 there, and /proc/net/tcp read inside shows every socket. Every process in that
namespace is one this test started, so it stops them all by that mark (never `ray stop`, which
stops every Ray process on the machine). Skipped, saying why, where Ray is not installed or where
network namespaces cannot be made (no root, no unshare)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="ray is not installed (sdeval[distributed]; scripts/setup test installs it)")

from support.measure_servers import free_port  # noqa: E402
from support.merged_records import claim_verdicts, without_order  # noqa: E402

from evaluator.measure.capture import Capture  # noqa: E402
from evaluator.measure.cli import _write_record  # noqa: E402
from evaluator.measure.merge import CLOCK_SHARE  # noqa: E402

VENV_BIN = Path(sys.executable).parent
QUIET = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONUNBUFFERED": "1"}


def _namespace_problem() -> str | None:
    for tool in ("unshare", "nsenter", "ip"):
        if shutil.which(tool) is None:
            return f"no {tool} on this machine"
    tried = subprocess.run(["unshare", "--net", "true"], capture_output=True, text=True)
    if tried.returncode:
        return f"cannot make a network namespace here: unshare --net: {tried.stderr.strip()[:200]}"
    return None


class Namespace:
    """A network namespace with loopback only, held by a sleeping process; `start` runs a command
    in it (its own process group); `stop` ends every process in it."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.holder = subprocess.Popen(["unshare", "--net", "sh", "-c", "ip link set lo up && exec sleep 900"], start_new_session=True)
        self.net = f"/proc/{self.holder.pid}/ns/net"
        deadline = time.monotonic() + 10
        while os.readlink(self.net) == os.readlink("/proc/self/ns/net") or b"UP" not in self.run(["ip", "-o", "link", "show", "lo"]).stdout:
            assert time.monotonic() < deadline, "the namespace's loopback did not come up"
            time.sleep(0.05)
        self.inode = os.readlink(self.net)

    def command(self, argv: list[str]) -> list[str]:
        return ["nsenter", f"--net={self.net}", *argv]

    def run(self, argv: list[str], **kw) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(argv), capture_output=True, env=QUIET, timeout=kw.pop("timeout", 300), **kw)

    def start(self, argv: list[str], log: str) -> subprocess.Popen:
        with open(self.logs / log, "wb") as out:
            return subprocess.Popen(self.command(argv), stdout=out, stderr=subprocess.STDOUT, env=QUIET, start_new_session=True)

    def pids(self) -> list[int]:
        """Every process in the namespace: each one this test started, or a child of one."""
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if os.readlink(entry / "ns" / "net") == self.inode:
                        found.append(int(entry.name))
                except OSError:
                    pass
        return found

    def sockets(self) -> list[tuple[str, str, int]]:
        """(local address, remote address, inode) of every TCP socket in the namespace, IPv4 and IPv6."""
        out = []
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            text = self.run(["cat", table]).stdout.decode()
            for line in text.splitlines()[1:]:
                fields = line.split()
                out.append((_address(fields[1]), _address(fields[2]), int(fields[9])))
        return out

    def stop(self) -> None:
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            for pid in self.pids():
                if pid != self.holder.pid:
                    try:
                        os.kill(pid, sig)
                    except ProcessLookupError:
                        pass
            deadline = time.monotonic() + wait
            while [p for p in self.pids() if p != self.holder.pid] and time.monotonic() < deadline:
                time.sleep(0.1)
        self.holder.kill()
        self.holder.wait(timeout=10)


def _address(text: str) -> str:
    """/proc/net/tcp's hex address: IPv4 as 4 little-endian bytes, IPv6 as 4 little-endian words."""
    host, port = text.split(":")
    raw = bytes.fromhex(host)
    if len(raw) == 4:
        return f"{'.'.join(str(b) for b in raw[::-1])}:{int(port, 16)}"
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    import ipaddress

    address = ipaddress.IPv6Address(words)
    mapped = address.ipv4_mapped
    return f"{mapped or address}:{int(port, 16)}"


def _wait_for(log: Path, text: str, process: subprocess.Popen, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while text not in log.read_text(errors="replace"):
        assert process.poll() is None, f"{log.name} ended: {log.read_text(errors='replace')[-2000:]}"
        assert time.monotonic() < deadline, f"{log.name}: no {text!r} in {seconds} s"
        time.sleep(0.2)


class Cluster:
    def __init__(self, ns: Namespace, temp: Path) -> None:
        self.ns, self.temp = ns, temp
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.head = self._node("head", ["--head", "--port", str(self.port), "--include-dashboard", "false"])
        self.nodes = [self._node("node-1", ["--address", self.address])]

    def _node(self, name: str, how: list[str]) -> subprocess.Popen:
        # one CPU each: the two workers (one CPU each) land on two nodes
        argv = [str(VENV_BIN / "ray"), "start", *how, "--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--block"]
        process = self.ns.start([*argv, "--temp-dir", str(self.temp / name), "--disable-usage-stats"], f"{name}.log")
        _wait_for(self.ns.logs / f"{name}.log", "Ray runtime started", process)
        return process

    def add_node(self, name: str) -> None:
        self.nodes.append(self._node(name, ["--address", self.address]))


@pytest.fixture(scope="module")
def cluster():
    if (problem := _namespace_problem()) is not None:
        pytest.skip(problem)
    temp = Path(tempfile.mkdtemp(prefix="sdray"))  # short: Ray's socket paths under it must fit in 107 bytes
    ns = Namespace(temp)
    try:
        sims = {}
        for name, how in (("speculative", ["--speculative"]), ("target-only", []), ("slow", ["--step-delay", "0.03"])):
            port = free_port()
            delay = [] if name == "slow" else ["--step-delay", "0.002"]
            sims[name] = (
                f"http://127.0.0.1:{port}",
                ns.start([sys.executable, "-m", "evaluator.measure.simulator", "--port", str(port), *how, *delay], f"sim-{name}.log"),
            )
        yield ns, Cluster(ns, temp), {name: url for name, (url, _) in sims.items()}
    finally:
        ns.stop()
        shutil.rmtree(temp, ignore_errors=True)


def _counters(ns: Namespace, url: str) -> dict[str, float]:
    got = ns.run([sys.executable, "-c", f"import httpx; print(httpx.get('{url}/metrics').text)"])
    assert got.returncode == 0, got.stderr
    return {name: float(value) for name, value in (line.split() for line in got.stdout.decode().splitlines() if line and not line.startswith("#"))}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _as_one_process(merged: Path, into: Path) -> Path:
    """The merged capture's requests as one process would have captured them: no worker, no split."""
    into.mkdir()
    lines = []
    for e in _lines(merged / "capture.jsonl"):
        if e["kind"] == "session":
            e = {k: v for k, v in e.items() if k != "parts"}
        elif e["kind"] == "request":
            e = {k: v for k, v in e.items() if k != "worker"}
        elif e["kind"] == "window":
            e = {k: v for k, v in e.items() if k not in ("workers", "clock_uncertainty_us")}
        lines.append(json.dumps(e) + "\n")
    (into / "capture.jsonl").write_text("".join(lines))
    for scrape in merged.glob("*.prom"):
        shutil.copy(scrape, into / scrape.name)
    return into


@pytest.mark.slow  # a Ray cluster of two nodes: tens of seconds to start
def test_two_ray_nodes_on_loopback_count_what_the_servers_counted(tmp_path, cluster, capsys, sdeval):
    ns, ray_cluster, urls = cluster
    out = tmp_path / "rec.json"
    argv = ["--arm", f"speculative={urls['speculative']}", "--metrics", f"{urls['speculative']}/metrics"]
    argv += ["--arm", f"target-only={urls['target-only']}", "--metrics", f"{urls['target-only']}/metrics"]
    argv += ["--concurrency", "1,3", "--repetitions", "3", "--requests", "6", "--warmup", "0", "--max-tokens", "24", "--quiet"]
    done = ns.run([str(VENV_BIN / "sdeval"), "measure", *argv, "--ray", ray_cluster.address, "--workers", "2", "-o", str(out)])
    assert done.returncode in (0, 1), done.stderr.decode()[-3000:]
    # every socket in the namespace, Ray's included, is on loopback; and Ray's processes hold many of them
    sockets = ns.sockets()
    assert sockets and all(
        local.startswith(("127.", "::1:")) and remote.startswith(("127.", "::1:", "0.0.0.0:", "::")) for local, remote, _ in sockets
    )
    assert all(remote.rsplit(":", 1)[0] in ("0.0.0.0", "::") or remote.startswith(("127.", "::1:")) for _, remote, _ in sockets)
    ray_inodes = set()
    for pid in ns.pids():
        try:
            if "ray" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                ray_inodes |= {int(os.readlink(fd)[8:-1]) for fd in Path(f"/proc/{pid}/fd").iterdir() if os.readlink(fd).startswith("socket:[")}
        except OSError:
            pass
    ray_tcp = [s for s in sockets if s[2] in ray_inodes]
    assert len(ray_tcp) >= 4 and f"127.0.0.1:{ray_cluster.port}" in {local for local, _, _ in ray_tcp}  # the GCS, among them
    # the counts are the servers' counters, the requests the sum over the workers, on two nodes
    record = json.loads(out.read_text())
    spec, base = _counters(ns, urls["speculative"]), _counters(ns, urls["target-only"])
    # the server's counters over each window's whole span (the run's own counts cover its steady intervals)
    span = {r["id"]: r["measurement"].get("whole_span", r["counts"]) for r in record["runs"]}
    speculative = [span[r["id"]] for r in record["runs"] if r["arrangement"] == "speculative"]
    assert sum(r["verification_steps"] for r in speculative) == spec["llamacpp:spec_decode_num_drafts_total"]
    assert sum(r["proposed_drafts"] for r in speculative) == spec["llamacpp:spec_decode_num_draft_tokens_total"]
    assert sum(r["accepted_drafts"] for r in speculative) == spec["llamacpp:spec_decode_num_accepted_tokens_total"]
    assert sum(r["emitted_tokens"] for r in speculative) == spec["llamacpp:tokens_predicted_total"]
    assert (
        sum(span[r["id"]]["emitted_tokens"] for r in record["runs"] if r["arrangement"] == "target-only") == base["llamacpp:tokens_predicted_total"]
    )
    lines = _lines(tmp_path / "rec.json.capture" / "capture.jsonl")
    requests = [e for e in lines if e["kind"] == "request"]
    windows = [e for e in lines if e["kind"] == "window"]
    assert sum(r["workload"]["requests_sent"] for r in record["runs"]) == len(requests) == sum(w["requests"] for e in windows for w in e["workers"])
    assert len(requests) == 2 * 3 * 6 * 2 and {r["worker"] for r in requests} == {0, 1}
    starts = [_lines(tmp_path / "rec.json.parts" / f"worker-{k}" / "capture.jsonl") for k in range(2)]
    clocks = [next(e for e in part if e["kind"] == "clock" and e["when"] == "start") for part in starts]
    assert clocks[0]["node"] != clocks[1]["node"]  # two Ray nodes
    # one machine: one clock, and the offset measured over Ray's round trips agrees within its bound
    for c in clocks:
        assert c["same_clock"] and abs(c["measured"]["offset_s"]) <= c["measured"]["uncertainty_s"] + 0.002
    assert all(e["clock_uncertainty_us"] == 0 and e["clock_uncertainty_us"] <= CLOCK_SHARE * e["duration_us"] for e in windows)
    notes = next(r["notes"] for r in record["runs"] if r["id"] == "speculative-c3")
    assert "Sent by 2 Ray workers started on one instant of the driver's clock" in notes and "the concurrency split 2 + 1 slots" in notes
    # the merged record assesses as a one-process record of the same requests: same counts, same verdicts
    one = tmp_path / "one.json"
    capture = Capture(_as_one_process(tmp_path / "rec.json.capture", tmp_path / "one.json.capture"))
    _write_record(capture, next(e for e in _lines(capture.log) if e["kind"] == "session"), [], one, force=False)
    a = json.loads(one.read_text())
    merged = [without_order(r) for r in record["runs"]]
    # the record keeps each window's clock bound (0: one machine, one clock); one process has none
    for run in merged:
        run["measurement"] = {**run["measurement"], "windows": [dict(w) for w in run["measurement"]["windows"]]}
        assert [w.pop("clock_uncertainty_us") for w in run["measurement"]["windows"]] == [0] * len(run["measurement"]["windows"])
    assert [without_order(r) for r in a["runs"]] == merged
    assert a["claims"] == record["claims"]
    assert claim_verdicts(sdeval, one, tmp_path, "one") == claim_verdicts(sdeval, out, tmp_path, "ray")


@pytest.mark.slow  # a Ray cluster of two nodes: tens of seconds to start
def test_a_ray_node_killed_mid_window_is_a_finding_and_resume_measures_the_window_again(tmp_path, cluster):
    ns, ray_cluster, urls = cluster
    out = tmp_path / "rec.json"
    parts = tmp_path / "rec.json.parts"
    argv = ["--arm", f"target-only={urls['slow']}", "--concurrency", "2", "--repetitions", "3", "--requests", "4", "--warmup", "0"]
    argv += ["--max-tokens", "24", "--quiet", "--ray", ray_cluster.address, "--workers", "2", "-o", str(out)]
    sdeval = [str(VENV_BIN / "sdeval"), "measure", *argv]
    run = ns.start(sdeval, "killed-run.log")
    node = ray_cluster.nodes[-1]
    deadline = time.monotonic() + 120
    victim = None
    while victim is None:  # the worker on the non-head node, once it is in its second window
        assert run.poll() is None and time.monotonic() < deadline, (ns.logs / "killed-run.log").read_text()
        for k in range(2):
            log = parts / f"worker-{k}" / "capture.jsonl"
            lines = _lines(log) if log.is_file() else []
            pid = next((e["pid"] for e in lines if e["kind"] == "clock"), None)
            if pid and os.getpgid(int(Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[1])) == node.pid:  # its raylet is node-1's
                if sum(e["kind"] == "window" for e in lines) == 1 and any(e["kind"] == "request" and e["repetition"] == 1 for e in lines):
                    victim = (k, pid)
        time.sleep(0.05)
    k, pid = victim
    os.killpg(node.pid, signal.SIGKILL)  # the node: its ray start, raylet and agents
    os.kill(pid, signal.SIGKILL)  # and the worker it ran (Ray workers have sessions of their own)
    assert run.wait(timeout=120) == 1
    said = (ns.logs / "killed-run.log").read_text()
    assert f"sdeval: finding: window target-only c=2 repetition 2: worker {k} (pid {pid} on node " in said
    assert f"it is marked incomplete, the finished windows are kept in {parts}: measure it again with the same command and --resume" in said
    assert any(e["kind"] == "window-incomplete" and e["repetition"] == 1 for e in _lines(parts / f"worker-{k}" / "capture.jsonl"))
    record = json.loads(out.read_text())
    assert len(record["runs"][0]["repetitions"]) == 1  # the window every worker finished
    # a node replaces it; --resume measures the cut window (a new attempt: new salts) and the last one
    ray_cluster.add_node("node-2")
    resumed = ns.run([*sdeval, "--resume"])
    assert resumed.returncode in (0, 1), resumed.stderr.decode()[-3000:]
    record = json.loads(out.read_text())
    assert len(record["runs"][0]["repetitions"]) == 3 and record["runs"][0]["workload"]["requests_sent"] == 12
    again = [e for e in _lines(tmp_path / "rec.json.capture" / "capture.jsonl") if e["kind"] == "request" and e["repetition"] == 1]
    assert len(again) == 4 and all(e["salt"].endswith("-1]") for e in again)


def test_a_ray_address_nothing_answers_on_is_one_line_at_once(tmp_path, capsys):
    from support.measure_servers import serve

    from evaluator.measure.cli import main as measure
    from evaluator.measure.simulator import Simulator

    nobody = free_port()
    with serve(Simulator()) as url:
        for address, said in (
            (f"127.0.0.1:{nobody}", f"sdeval: --ray 127.0.0.1:{nobody}: nothing answers there (Connection refused); is its head node started?"),
            ("head-node", "sdeval: --ray head-node: give the cluster's HOST:PORT (its GCS, as `ray start --head` printed it), or auto"),
        ):
            started = time.monotonic()
            assert measure(["--arm", f"target-only={url}", "--ray", address, "--quiet", "-o", str(tmp_path / "r.json")]) == 2
            assert capsys.readouterr().err.splitlines() == [said]
            assert time.monotonic() - started < 30 and not (tmp_path / "r.json").exists()
