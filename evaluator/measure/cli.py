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

from .._infra.exit_codes import EXIT_CANNOT_RUN, EXIT_FINDINGS, EXIT_OK
from .capture import Capture, MeasureProblem, capture_dir
from .loop import Arm, Settings

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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sdeval measure",
        description="Measure two arms of an offer (speculative and target-only) at a sweep of loads, and write an evidence record.",
    )
    p.add_argument(
        "--arm",
        action=_ArmAction,
        dest="arms",
        metavar="NAME=URL",
        help="An arm and its OpenAI-compatible base URL; NAME speculative or target-only (or any id with --arrangement).",
    )
    p.add_argument("--metrics", action=_PerArm, metavar="URL", help="This arm's Prometheus /metrics (vLLM or llama.cpp counters).")
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
    p.add_argument("--max-tokens", type=int, default=128, metavar="N")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--top-p", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="Seconds a request may take (default 120).")
    p.add_argument("--vendor", metavar="NAME", help="Whose offer this is (the record's offer.vendor).")
    p.add_argument("--offer-id", metavar="ID", help="The offer's reference (default measured-DATE).")
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
        args.concurrency, args.repetitions, args.warmup, args.requests, args.max_tokens, args.temperature, args.top_p, args.seed, args.timeout
    )


def _arms_of(args) -> list[Arm]:
    arms, names = [], set()
    for a in args.arms or []:
        arrangement = a.get("arrangement") or (a["name"] if a["name"] in ARRANGEMENTS else None)
        if arrangement is None:
            raise MeasureProblem(f"--arm {a['name']}: say whether it is speculative or target-only with --arrangement after it")
        if a["name"] in names:
            raise MeasureProblem(f"--arm {a['name']} given twice")
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
                a.get("metrics"),
                a.get("api_key_env"),
                Path(a["configuration"]) if a.get("configuration") else None,
                headers,
            )
        )
    return arms


def _configuration_file(path: Path) -> dict:
    from ..engine.loader import UnreadableFile, load_file

    try:
        loaded = load_file(str(path))
    except UnreadableFile as exc:
        raise MeasureProblem(f"--configuration {exc}") from None
    if loaded.problem is not None:
        raise MeasureProblem(f"--configuration {path}: {loaded.problem.where()}{loaded.problem.message}")
    if not isinstance(loaded.data, dict):
        raise MeasureProblem(f"--configuration {path}: not a mapping of configuration fields")
    return loaded.data


def _command_line(argv: list[str]) -> str:
    return shlex.join(["sdeval", "measure", *argv])  # API keys are named by variable, never given on it


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        return _measure(args, argv)
    except MeasureProblem as exc:
        print(f"sdeval: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN


def _measure(args, argv: list[str]) -> int:
    from .._infra.atomic import OutputRefused, refuse_output, write_atomic
    from .build import build
    from .progress import Progress, summary
    from .prompts import load_prompts, random_prompts

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
        prompts, dataset, sha = load_prompts(args.prompts)
    configs = {arm.name: _configuration_file(arm.configuration) for arm in arms if arm.configuration}
    session = {
        "kind": "session",
        "command": _command_line(argv),
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "vendor": args.vendor,
        "offer_id": args.offer_id,
        "settings": {**settings.__dict__, "dataset": dataset, "dataset_sha256": sha},
    }
    capture = Capture(directory)
    previous, known_arms, done = None, [], set()
    if continuing:
        entries = capture.entries() if capture.log.is_file() else None
        if entries is None:
            raise MeasureProblem(f"{capture.log}: no capture to continue beside {record_path}")
        previous = next(e for e in entries if e["kind"] == "session")
        if previous["settings"] != session["settings"]:
            differing = [k for k in session["settings"] if previous["settings"].get(k) != session["settings"][k]]
            raise MeasureProblem(f"{capture.log}: was measured with other settings ({', '.join(differing)}); give the same ones")
        known_arms = [e for e in entries if e["kind"] == "arm"]
        done = {(e["arm"], e["concurrency"], e["repetition"]) for e in entries if e["kind"] == "window"}
        if args.append:
            for arm in arms:
                if any(k["name"] == arm.name for k in known_arms):
                    raise MeasureProblem(f"{capture.log}: already holds arm {arm.name}; use --resume to finish it")
        if args.resume and not arms:
            arms = [Arm(k["name"], k["url"], k["arrangement"], k.get("metrics"), k.get("api_key_env")) for k in known_arms]
            for arm in arms:
                if arm.api_key_env:
                    arm.headers = {"Authorization": f"Bearer {os.environ.get(arm.api_key_env, '')}"}
    asyncio.run(_run(arms, prompts, settings, capture, session, continuing, done, configs, known_arms, Progress(args.quiet)))
    session_for_build = previous or session
    all_arms = {k["name"]: k for k in known_arms}
    for e in capture.entries():
        if e["kind"] == "arm":
            all_arms[e["name"]] = e
    record, findings, table = build(capture, session_for_build, list(all_arms.values()))
    try:
        write_atomic(record_path, (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode(), force=continuing)
    except OutputRefused as exc:
        raise MeasureProblem(str(exc)) from None
    sys.stdout.write(summary(table))
    for finding in findings:
        print(f"sdeval: finding: {finding}", file=sys.stderr)
    print(f"sdeval: wrote {record_path} (record {record['record_version']}) and its capture {directory}/", file=sys.stderr)
    return EXIT_FINDINGS if findings else EXIT_OK


async def _run(arms, prompts, settings, capture, session, continuing, done, configs, known_arms, progress) -> None:
    import tempfile

    import httpx

    from .loop import identify, measure_arm
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
            if arm.metrics:
                text = await fetch(client, arm.metrics, arm.headers)
                with tempfile.TemporaryDirectory() as tmp:
                    probe = Path(tmp) / "metrics.prom"
                    probe.write_bytes(text)
                    check(probe, arm.metrics, arm.arrangement == "speculative")
        capture.open(new=not continuing)
        try:
            if not continuing:
                capture.write(session)
            known = {k["name"] for k in known_arms}
            for arm in arms:
                if arm.name not in known:
                    capture.write(
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
            for arm in arms:
                await measure_arm(client, arm, identities[arm.name]["models"][0], prompts, settings, capture, done, progress)
        finally:
            capture.close()
