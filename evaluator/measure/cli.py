"""`sdeval measure` arguments (per-arm flags follow their --arm, which typer cannot express) and the run.

Exit codes: 0 measured, no finding; 1 measured and the record written, with findings (failed
requests, counters that disagree with the client); 2 could not run (nothing overwritten).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import shlex
import sys
from pathlib import Path

from . import configuration
from .capture import Capture, MeasureProblem, capture_dir
from .loop import Arm, Settings
from .merge import PART, clock, merge
from .workers import WorkerPool, measure_windows_in_workers, worker_count

ARRANGEMENTS = ("speculative", "target-only")


class _ArmAction(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):
        name, sep, url = value.partition("=")
        if not sep or not name or not url.startswith(("http://", "https://")):
            parser.error(f"--arm {value!r}: give NAME=URL, an OpenAI-compatible base URL (http://host:port or .../v1)")
        arms = namespace.arms or []
        arms.append({"name": name, "url": url})
        namespace.arms = arms


class _PerArm(argparse.Action):
    """--metrics, --api-key-env, --configuration and --arrangement belong to the --arm before them."""

    def __call__(self, parser, namespace, value, option_string=None):
        if not namespace.arms:
            parser.error(f"{option_string} must follow the --arm it belongs to")
        key = self.dest
        if key == "metrics":  # one per engine of the arm's deployment; their counters are summed
            namespace.arms[-1].setdefault(key, []).append(value)
            return
        if key in namespace.arms[-1]:
            parser.error(f"{option_string} given twice for arm {namespace.arms[-1]['name']}")
        namespace.arms[-1][key] = value


def _positive_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole numbers") from None
    if not values or any(v < 1 for v in values) or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"{text!r}: each concurrency at least 1, none twice")
    return values


class UsageError(Exception):
    """A command line measure cannot read: said as every other sdeval command says it (click's form)."""


class _Parser(argparse.ArgumentParser):
    """argparse (per-arm flags follow their --arm, which click cannot say), with its errors in the
    words and form of the typer commands: usage line, help hint, one Error line (exit 2)."""

    def error(self, message: str):
        raise UsageError(_clicks_words(message))  # instead of printing argparse's usage and exiting

    def parse_args(self, args=None, namespace=None):
        parsed, unknown = self.parse_known_args(args, namespace)
        if unknown:
            raise UsageError(_no_such_option(unknown[0], [o for a in self._actions for o in a.option_strings]))
        return parsed


def _no_such_option(given: str, options: list[str]) -> str:
    import difflib

    if not given.startswith("-"):
        return f"Got unexpected extra argument ({given})"
    close = difflib.get_close_matches(given.split("=")[0], options)
    if len(close) == 1:
        return f"No such option: {given} Did you mean {close[0]}?"
    return f"No such option: {given}" + (f" (Possible options: {', '.join(sorted(close))})" if close else "")


def _clicks_words(message: str) -> str:
    import re

    if m := re.fullmatch(r"the following arguments are required: (.+)", message):
        return "Missing option " + " / ".join(f"'{o}'" for o in m[1].split(", ")[0].split("/")) + "."
    if m := re.fullmatch(r"argument (\S+?)(?:/\S+)?: invalid choice: '(.*)' \(choose from (.*)\)", message):
        return f"Invalid value for '{m[1]}': '{m[2]}' is not one of: {m[3].replace(chr(39), '')}."
    if m := re.fullmatch(r"argument (\S+?)(?:/\S+)?: invalid (\w+) value: '(.*)'", message):
        return f"Invalid value for '{m[1]}': '{m[3]}' is not a valid {'integer' if m[2] == 'int' else 'number' if m[2] == 'float' else m[2]}."
    if m := re.fullmatch(r"argument (\S+?)(?:/\S+)?: (.*)", message):
        return f"Invalid value for '{m[1]}': {m[2]}"
    return message[:1].upper() + message[1:]


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="sdeval measure",
        allow_abbrev=False,  # as click: --conc is not --concurrency
        description="Measure two arms of an offer (speculative and target-only) at a sweep of loads, and write an evidence record. "
        "`sdeval measure merge DIR... -o RECORD` merges worker processes' captures made elsewhere.",
    )
    p.add_argument(
        "--arm",
        action=_ArmAction,
        dest="arms",
        metavar="NAME=URL",
        help="An arm and its OpenAI-compatible base URL; NAME speculative or target-only (or any id with --arrangement).",
    )
    p.add_argument(
        "--metrics",
        action=_PerArm,
        metavar="URL",
        help="This arm's Prometheus /metrics (vLLM or llama.cpp counters); once per engine where the deployment has several: their deltas are summed, each scrape kept.",
    )
    p.add_argument("--api-key-env", action=_PerArm, metavar="VAR", help="Environment variable holding this arm's API key (never written anywhere).")
    p.add_argument(
        "--configuration", action=_PerArm, metavar="FILE", help="YAML with this arm's configuration fields (hardware, numerics, proposer, revisions)."
    )
    p.add_argument("--arrangement", action=_PerArm, choices=ARRANGEMENTS, help="speculative or target-only, for an arm whose NAME is neither.")
    p.add_argument(
        "-o", "--output", type=Path, required=True, metavar="RECORD", help="The record to write (JSON); the raw capture goes to RECORD.capture/."
    )
    p.add_argument(
        "--append", action="store_true", help="Measure more arms into RECORD's capture (the same URL after a server restart) and rewrite RECORD."
    )
    p.add_argument("--resume", action="store_true", help="Continue RECORD's capture after its last finished window and rewrite RECORD.")
    p.add_argument(
        "--prompts",
        type=Path,
        metavar="FILE",
        help='JSONL prompts: {"prompt": ...} or {"messages": [...]}, optional "task". Default: the shipped set (chat, code, summarisation, maths).',
    )
    p.add_argument(
        "--random-prompts", type=int, metavar="N", help="N random-token prompts instead (they overstate speculative gains; named in the record)."
    )
    p.add_argument(
        "--concurrency", type=_positive_list, default=[1, 8, 32], metavar="C,C,...", help="Closed-loop concurrencies to measure (default 1,8,32)."
    )
    p.add_argument("--repetitions", type=int, default=3, metavar="N", help="Repetitions per load (default 3).")
    p.add_argument("--warmup", type=int, default=2, metavar="N", help="Warm-up requests before each window, never counted (default 2).")
    p.add_argument("--requests", type=int, metavar="N", help="Measured requests per window (default 4 x concurrency, at least 8).")
    p.add_argument(
        "--endpoint",
        choices=("chat", "completions"),
        default="chat",
        help="chat: /v1/chat/completions with messages (a chat model); completions: /v1/completions with text to continue (a base model). Default chat.",
    )
    p.add_argument("--max-tokens", type=int, default=128, metavar="N", help="Most output tokens per request, sent as max_tokens (default 128).")
    p.add_argument("--temperature", type=float, default=0.0, metavar="T", help="Sampling temperature sent on every request (default 0: greedy).")
    p.add_argument("--top-p", type=float, default=1.0, metavar="P", help="Nucleus sampling top_p sent on every request (default 1).")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="Sampling seed sent on every request (default 0).")
    p.add_argument(
        "--percentile-method",
        choices=("linear", "lower"),
        default="linear",
        help="Latency percentiles between two ranks: linear (interpolated, numpy's default) or lower (MLPerf Endpoints). Recorded with each figure.",
    )
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="Seconds a request may take (default 120).")
    p.add_argument("--vendor", metavar="NAME", help="Whose offer this is (the record's offer.vendor).")
    p.add_argument("--offer-id", metavar="ID", help="The offer's reference (default measured-DATE).")
    p.add_argument(
        "--workers",
        default="1",
        metavar="N|auto",
        help="Client processes on this machine, each sending its share of every window's concurrency (auto: one per core). Default 1.",
    )
    p.add_argument("--quiet", action="store_true", help="No progress bars.")
    return p


def _settings_of(args) -> Settings:
    for name in ("repetitions", "max_tokens"):
        if getattr(args, name) < 1:
            raise MeasureProblem(f"--{name.replace('_', '-')} must be at least 1")
    if args.warmup < 0 or (args.requests is not None and args.requests < 1) or args.timeout <= 0:
        raise MeasureProblem("--warmup must be 0 or more, --requests at least 1 and --timeout above 0")
    if not 0 <= args.temperature <= 100 or not 0 < args.top_p <= 1:
        raise MeasureProblem("--temperature must be 0 or more and --top-p within (0, 1]")
    return Settings(
        args.concurrency,
        args.repetitions,
        args.warmup,
        args.requests,
        args.max_tokens,
        args.temperature,
        args.top_p,
        args.seed,
        args.timeout,
        args.endpoint,
        args.percentile_method,
    )


def _arms_of(args) -> list[Arm]:
    arms, names = [], set()
    for a in args.arms or []:
        arrangement = a.get("arrangement") or (a["name"] if a["name"] in ARRANGEMENTS else None)
        if arrangement is None:
            import difflib

            close = difflib.get_close_matches(a["name"], ARRANGEMENTS, n=1)
            meant = f"did you mean {close[0]}? Or say" if close else "say"
            raise MeasureProblem(f"--arm {a['name']}: {meant} whether it is speculative or target-only with --arrangement after it")
        if a["name"] in names:
            raise MeasureProblem(f"--arm {a['name']} given twice")
        if len(set(a.get("metrics", []))) != len(a.get("metrics", [])):
            raise MeasureProblem(f"--arm {a['name']}: the same --metrics URL given twice would count its engine twice")
        names.add(a["name"])
        headers = {}
        if a.get("api_key_env"):
            key = os.environ.get(a["api_key_env"])
            if not key:
                raise MeasureProblem(f"--api-key-env {a['api_key_env']}: the variable is not set")
            headers["Authorization"] = f"Bearer {key}"
        arms.append(
            Arm(
                a["name"],
                a["url"],
                arrangement,
                a.get("metrics", []),
                a.get("api_key_env"),
                Path(a["configuration"]) if a.get("configuration") else None,
                headers,
            )
        )
    return arms


def _urls(metrics: str | list[str] | None) -> list[str]:
    """An arm's metrics URLs as its capture line holds them (one string in a capture before 1.3)."""
    return [] if metrics is None else [metrics] if isinstance(metrics, str) else metrics


def _command_line(argv: list[str]) -> str:
    return shlex.join(["sdeval", "measure", *argv])  # API keys are named by variable, never given on it


def merge_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="sdeval measure merge",
        allow_abbrev=False,
        description="Merge the captures of one measurement's worker processes (and its driver's, which scraped the counters) into one record.",
    )
    p.add_argument(
        "parts", nargs="+", type=Path, metavar="DIR", help="A worker's or the driver's capture directory (RECORD.parts/worker-K, .../driver)."
    )
    p.add_argument(
        "-o", "--output", type=Path, required=True, metavar="RECORD", help="The record to write (JSON); the merged capture goes to RECORD.capture/."
    )
    return p


def main(argv: list[str]) -> int:
    merging = argv[:1] == ["merge"]
    try:
        args = (merge_parser() if merging else parser()).parse_args(argv[1:] if merging else argv)
    except UsageError as exc:
        command = "sdeval measure merge [OPTIONS] DIR..." if merging else "sdeval measure [OPTIONS]"
        print(f"Usage: {command}\nTry '{command.split(' [')[0]} -h' for help.\n\nError: {exc}", file=sys.stderr)
        return 2
    try:
        return _merge(args) if merging else _measure(args, argv)
    except MeasureProblem as exc:
        for line in str(exc).splitlines():  # one line per problem (a configuration file can have several)
            print(f"sdeval: {line}", file=sys.stderr)
        return 2


def _merge(args) -> int:
    from .._infra.atomic import refuse_output

    if (problem := refuse_output(args.output, force=False)) is not None:
        raise MeasureProblem(problem.replace("pass --force to replace it", "choose another -o"))
    capture, left_out = merge(args.parts, capture_dir(args.output))
    _say_left_out(left_out)
    session = next(e for e in capture.entries() if e["kind"] == "session")
    return max(_write_record(capture, session, [], args.output, force=False), 1 if left_out else 0)


def _say_left_out(left_out: list[str]) -> None:
    for line in left_out:  # a window some process did not finish: named, never silently dropped
        print(f"sdeval: finding: {line}", file=sys.stderr)


def _measure(args, argv: list[str]) -> int:
    from .._infra.atomic import refuse_output
    from .progress import Progress
    from .prompts import SALT_SCHEME, load_prompts, new_nonce, random_prompts, require_text

    settings = _settings_of(args)
    arms = _arms_of(args)
    record_path: Path = args.output
    directory = capture_dir(record_path)
    continuing = args.append or args.resume
    if args.append and args.resume:
        raise MeasureProblem("give --append (more arms) or --resume (finish the same arms), not both")
    if not arms and not args.resume:
        raise MeasureProblem("no --arm NAME=URL given")
    if not continuing:
        if (problem := refuse_output(record_path, force=False)) is not None:
            raise MeasureProblem(problem.replace("pass --force to replace it", "choose another -o, or --append / --resume to add to it"))
        if directory.exists():
            raise MeasureProblem(f"{directory}: a capture is already there; pass --resume to continue it, or choose another -o")
    if args.prompts and args.random_prompts:
        raise MeasureProblem("give --prompts FILE or --random-prompts N, not both")
    if args.random_prompts is not None:
        if args.random_prompts < 1:
            raise MeasureProblem("--random-prompts must be at least 1")
        prompts, dataset = (
            random_prompts(args.random_prompts, 64, args.seed),
            f"random tokens ({args.random_prompts} prompts of 64 words, --random-prompts)",
        )
        import hashlib

        sha = hashlib.sha256(json.dumps([p.messages for p in prompts]).encode()).hexdigest()
        print("sdeval: warning: random-token prompts overstate speculative gains (SPEED-Bench); the record names them", file=sys.stderr)
    else:
        prompts, dataset, sha = load_prompts(args.prompts, args.endpoint)
    if args.endpoint == "completions":
        require_text(prompts, str(args.prompts or dataset))
    session_settings = {**settings.__dict__, "dataset": dataset, "dataset_sha256": sha}
    # every --configuration checked against the record's schema before anything is sent or written
    configs = {arm.name: configuration.load(arm.configuration, arm.name, arm.arrangement, session_settings) for arm in arms if arm.configuration}
    session = {
        "kind": "session",
        "command": _command_line(argv),
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "vendor": args.vendor,
        "offer_id": args.offer_id,
        "settings": session_settings,
        "salt": {"scheme": SALT_SCHEME, "nonce": new_nonce()},
    }
    workers = worker_count(args.workers)
    parts = record_path.with_name(record_path.name + ".parts")  # each process's own capture, with --workers
    if workers > 1 and continuing:
        raise MeasureProblem("--workers above 1 measures a new record; --append and --resume continue one-process captures only")
    if workers > 1 and parts.exists():
        raise MeasureProblem(f"{parts}: already there; choose another -o")
    capture = Capture(directory) if workers == 1 else Capture(parts / "driver")
    previous, known_arms = None, []
    started: dict[tuple, int | None] = {}
    if continuing:
        entries = capture.entries() if capture.log.is_file() else None
        if entries is None:
            raise MeasureProblem(f"{capture.log}: no capture to continue beside {record_path}")
        previous = next(e for e in entries if e["kind"] == "session")
        if "salt" in previous:  # the measurement's salts, so that every arm's prompts stay equal
            session["salt"] = previous["salt"]
        if previous["settings"] != session["settings"]:
            differing = [k for k in session["settings"] if previous["settings"].get(k) != session["settings"][k]]
            raise MeasureProblem(f"{capture.log}: was measured with other settings ({', '.join(differing)}); give the same ones")
        known_arms = [e for e in entries if e["kind"] == "arm"]
        for e in entries:  # per window: how often it was started; None once one attempt finished
            key = (e.get("arm"), e.get("concurrency"), e.get("repetition"))
            if e["kind"] == "window-start" and (attempts := started.get(key, 0)) is not None:
                started[key] = attempts + 1
            elif e["kind"] == "window":
                started[key] = None
        if args.append:
            for arm in arms:
                if any(k["name"] == arm.name for k in known_arms):
                    raise MeasureProblem(f"{capture.log}: already holds arm {arm.name}; use --resume to finish it")
        if args.resume and not arms:
            arms = [Arm(k["name"], k["url"], k["arrangement"], _urls(k.get("metrics")), k.get("api_key_env")) for k in known_arms]
            for arm in arms:
                if arm.api_key_env:
                    arm.headers = {"Authorization": f"Bearer {os.environ.get(arm.api_key_env, '')}"}
    order = "arm-by-arm" if args.append else "interleaved"
    asyncio.run(_run(arms, prompts, settings, capture, session, continuing, started, configs, known_arms, Progress(args.quiet), order, workers))
    left_out: list[str] = []
    if workers > 1:  # the processes' captures, merged into the one the record is built from
        capture, left_out = merge([parts / "driver", *(parts / f"worker-{k}" for k in range(workers))], directory)
        _say_left_out(left_out)
    return max(_write_record(capture, previous or session, known_arms, record_path, force=continuing), 1 if left_out else 0)


def _write_record(capture: Capture, session: dict, known_arms: list[dict], record_path: Path, force: bool) -> int:
    """The record built from the capture, written atomically; the summary and findings said."""
    from .._infra.atomic import OutputRefused, write_atomic
    from .build import build
    from .progress import summary

    all_arms = {k["name"]: k for k in known_arms}
    for e in capture.entries():
        if e["kind"] == "arm":
            all_arms[e["name"]] = e
        elif e["kind"] == "configuration" and e["arm"] in all_arms:  # corrected with --resume
            all_arms[e["arm"]] = {**all_arms[e["arm"]], "configuration": e["configuration"], "configuration_corrected": e["file"]}
    record, findings, table = build(capture, session, list(all_arms.values()))
    try:
        write_atomic(record_path, (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode(), force=force)
    except OutputRefused as exc:
        raise MeasureProblem(str(exc)) from None
    sys.stdout.write(summary(table))
    for finding in findings:
        print(f"sdeval: finding: {finding}", file=sys.stderr)
    print(f"sdeval: wrote {record_path} (record {record['record_version']}) and its capture {capture.dir}/", file=sys.stderr)
    return 1 if findings else 0


async def _run(arms, prompts, settings, capture, session, continuing, started, configs, known_arms, progress, order: str, workers: int = 1) -> None:
    import tempfile

    import httpx

    from .loop import identify, measure_windows, window_order
    from .scrape import check, fetch

    # Idle connections are dropped after 2 s, before a server's own keep-alive timeout (5 s in
    # llama.cpp's) can close one just as a request goes out on it.
    limits = httpx.Limits(
        max_connections=max(settings.concurrencies) + 8, max_keepalive_connections=max(settings.concurrencies) + 8, keepalive_expiry=2.0
    )
    async with httpx.AsyncClient(limits=limits, trust_env=False) as client:
        # Everything checked before anything is written: endpoints, model lists, metrics.
        identities = {}
        for arm in arms:
            identities[arm.name] = await identify(client, arm)
            for url in arm.metrics:
                text = await fetch(client, url, arm.headers)
                with tempfile.TemporaryDirectory() as tmp:
                    probe = Path(tmp) / "metrics.prom"
                    probe.write_bytes(text)
                    check(probe, url, arm.arrangement == "speculative")
        if workers > 1:
            capture.dir.parent.mkdir()
        capture.open(new=not continuing)
        try:
            if not continuing:
                capture.write(session)
            if workers > 1:
                capture.write({"kind": PART, "role": "driver", "workers": workers, "clock": clock()})
            arm_lines = []
            known = {k["name"] for k in known_arms}
            for arm in arms:
                if arm.name in known and arm.name in configs:
                    capture.write({"kind": "configuration", "arm": arm.name, "file": str(arm.configuration), "configuration": configs[arm.name]})
                if arm.name not in known:
                    arm_lines.append(
                        {
                            "kind": "arm",
                            "name": arm.name,
                            "url": arm.url,
                            "arrangement": arm.arrangement,
                            "metrics": arm.metrics,
                            "api_key_env": arm.api_key_env,
                            "configuration": configs.get(arm.name),
                            **identities[arm.name],
                        }
                    )
                    capture.write(arm_lines[-1])
            call = {"kind": "call", "order": order, "arms": [arm.name for arm in arms]}
            capture.write(call)
            models = {arm.name: identities[arm.name]["models"][0] for arm in arms}
            sequence = window_order(arms, settings, interleaved=order == "interleaved")
            if workers == 1:
                await measure_windows(client, sequence, models, prompts, settings, session["salt"]["nonce"], capture, started, progress)
            else:
                pool = WorkerPool(workers, capture.dir.parent, session, arm_lines, call, arms, settings)
                try:
                    await measure_windows_in_workers(client, sequence, models, prompts, settings, session["salt"]["nonce"], capture, pool, progress)
                finally:
                    pool.close()
        finally:
            capture.close()
