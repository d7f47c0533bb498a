"""`sdeval measure` arguments (per-arm flags follow their --arm, which typer cannot express) and the run.

Exit codes: 0 measured, no finding; 1 measured and the record written, with findings (failed
requests, counters that disagree with the client); 2 could not run (nothing overwritten).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import re
import shlex
import sys
from pathlib import Path

from .._infra.safe_text import shown
from . import configuration
from .answers import name_problem
from .bodies import INFO_DEADLINE_S
from .capture import Capture, MeasureProblem, capture_dir
from .credentials import Scrubber, arm_keys
from .loop import Arm, Settings

ARRANGEMENTS = ("speculative", "target-only")
ARM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


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
        description="Measure two arms of an offer (speculative and target-only) at a sweep of loads, and write an evidence record.",
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
    p.add_argument(
        "--api-key-env",
        action=_PerArm,
        metavar="VAR",
        help="Environment variable holding this arm's API key, sent only to its URL's origin (scheme, host, port); never written.",
    )
    p.add_argument(
        "--metrics-api-key-env",
        action=_PerArm,
        metavar="VAR",
        help="Environment variable holding a key for this arm's --metrics URL only (another origin gets no key otherwise).",
    )
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
    p.add_argument(
        "--timeout", type=float, default=120.0, metavar="S", help="Seconds a request may take, from sending it to its last byte (default 120)."
    )
    p.add_argument(
        "--info-timeout",
        type=float,
        default=INFO_DEADLINE_S,
        metavar="S",
        help=f"Seconds each /v1/models, /props and /metrics request may take, body included (default {INFO_DEADLINE_S:g}).",
    )
    p.add_argument("--vendor", metavar="NAME", help="Whose offer this is (the record's offer.vendor).")
    p.add_argument("--offer-id", metavar="ID", help="The offer's reference (default measured-DATE).")
    p.add_argument("--quiet", action="store_true", help="No progress bars.")
    return p


def _settings_of(args) -> Settings:
    for name in ("repetitions", "max_tokens"):
        if getattr(args, name) < 1:
            raise MeasureProblem(f"--{name.replace('_', '-')} must be at least 1")
    if args.warmup < 0 or (args.requests is not None and args.requests < 1) or not args.timeout > 0 or not args.info_timeout > 0:
        raise MeasureProblem("--warmup must be 0 or more, --requests at least 1 and --timeout and --info-timeout above 0")
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
        args.info_timeout,
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
        if not ARM_NAME.fullmatch(a["name"]):
            raise MeasureProblem(
                f"--arm {shown(a['name'])}: an arm's name is 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit "
                "(it names the record's configuration and the capture's files)"
            )
        if len(set(a.get("metrics", []))) != len(a.get("metrics", [])):
            raise MeasureProblem(f"--arm {a['name']}: the same --metrics URL given twice would count its engine twice")
        names.add(a["name"])
        arms.append(
            Arm(
                a["name"],
                a["url"],
                arrangement,
                a.get("metrics", []),
                a.get("api_key_env"),
                Path(a["configuration"]) if a.get("configuration") else None,
                a.get("metrics_api_key_env"),
                arm_keys(a["url"], a.get("api_key_env"), a.get("metrics"), a.get("metrics_api_key_env")),
            )
        )
    return arms


def _urls(metrics: str | list[str] | None) -> list[str]:
    """An arm's metrics URLs as its capture line holds them (one string in a capture before 1.3)."""
    return [] if metrics is None else [metrics] if isinstance(metrics, str) else metrics


def _command_line(argv: list[str]) -> str:
    return shlex.join(["sdeval", "measure", *argv])  # API keys are named by variable, never given on it


def main(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except UsageError as exc:
        print(f"Usage: sdeval measure [OPTIONS]\nTry 'sdeval measure -h' for help.\n\nError: {exc}", file=sys.stderr)
        return 2
    try:
        return _measure(args, argv)
    except MeasureProblem as exc:
        for line in str(exc).splitlines():  # one line per problem (a configuration file can have several)
            print(f"sdeval: {shown(line)}", file=sys.stderr)  # it may quote what a server sent
        return 2


def _measure(args, argv: list[str]) -> int:
    from .._infra.atomic import OutputRefused, refuse_output, write_atomic
    from .build import build
    from .progress import Progress, summary
    from .prompts import SALT_SCHEME, load_prompts, new_nonce, random_prompts, require_text

    settings = _settings_of(args)
    for flag, value in (("--vendor", args.vendor), ("--offer-id", args.offer_id)):
        if value is not None and (problem := name_problem(value)) is not None:  # the record names them
            raise MeasureProblem(f'{flag} "{shown(value[:200])}": {problem}')
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
    measured = {k: v for k, v in settings.__dict__.items() if k != "info_timeout_s"}  # (not a setting of the measurement)
    session_settings = {**measured, "dataset": dataset, "dataset_sha256": sha}
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
    capture = Capture(directory, secrets=tuple(secret for arm in arms for secret in arm.keys.secrets))
    try:
        if continuing and directory.is_dir():
            capture.lock()  # before reading it: no other run may measure into it while this one does
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
                # The capture names each key's variable, never the key: read again, one line when unset.
                arms = [
                    Arm(
                        k["name"],
                        k["url"],
                        k["arrangement"],
                        _urls(k.get("metrics")),
                        k.get("api_key_env"),
                        metrics_api_key_env=k.get("metrics_api_key_env"),
                        keys=arm_keys(k["url"], k.get("api_key_env"), _urls(k.get("metrics")), k.get("metrics_api_key_env")),
                    )
                    for k in known_arms
                ]
        capture.scrub = Scrubber(tuple(secret for arm in arms for secret in arm.keys.secrets))
        order = "arm-by-arm" if args.append else "interleaved"
        asyncio.run(_run(arms, prompts, settings, capture, session, continuing, started, configs, known_arms, Progress(args.quiet), order))
        session_for_build = previous or session
        all_arms = {k["name"]: k for k in known_arms}
        for e in capture.entries():
            if e["kind"] == "arm":
                all_arms[e["name"]] = e
            elif e["kind"] == "configuration" and e["arm"] in all_arms:  # corrected with --resume
                all_arms[e["arm"]] = {**all_arms[e["arm"]], "configuration": e["configuration"], "configuration_corrected": e["file"]}
        record, findings, table = build(capture, session_for_build, list(all_arms.values()))
        try:
            write_atomic(record_path, (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode(), force=continuing)
        except OutputRefused as exc:
            raise MeasureProblem(str(exc)) from None
        sys.stdout.write(summary(table))
        for finding in findings:
            print(f"sdeval: finding: {finding}", file=sys.stderr)
        print(f"sdeval: wrote {record_path} (record {record['record_version']}) and its capture {directory}/", file=sys.stderr)
        return 1 if findings else 0
    except MeasureProblem as exc:  # it may quote what a server sent back, the key too
        raise MeasureProblem(capture.scrub.text(str(exc))) from None
    finally:
        capture.unlock()


async def _run(arms, prompts, settings, capture, session, continuing, started, configs, known_arms, progress, order: str) -> None:
    import tempfile

    import httpx

    from .loop import identify, measure_windows, window_order
    from .scrape import check, fetch, refuse_non_finite

    # Idle connections are dropped after 2 s, before a server's own keep-alive timeout (5 s in
    # llama.cpp's) can close one just as a request goes out on it.
    limits = httpx.Limits(
        max_connections=max(settings.concurrencies) + 8, max_keepalive_connections=max(settings.concurrencies) + 8, keepalive_expiry=2.0
    )
    async with httpx.AsyncClient(limits=limits, trust_env=False) as client:
        # Everything checked before anything is written: endpoints, model lists, metrics.
        identities = {}
        for arm in arms:
            identities[arm.name] = await identify(client, arm, settings.info_timeout_s)
            for url in arm.metrics:
                text = await fetch(client, url, arm.keys.for_metrics(url), settings.info_timeout_s)
                with tempfile.TemporaryDirectory() as tmp:
                    probe = Path(tmp) / "metrics.prom"
                    probe.write_bytes(text)
                    refuse_non_finite(probe, url, check(probe, url, arm.arrangement == "speculative"))
        capture.open(new=not continuing)
        try:
            if not continuing:
                capture.write(session)
            known = {k["name"] for k in known_arms}
            for arm in arms:
                if arm.name in known and arm.name in configs:
                    capture.write({"kind": "configuration", "arm": arm.name, "file": str(arm.configuration), "configuration": configs[arm.name]})
                if arm.name not in known:
                    capture.write(
                        {
                            "kind": "arm",
                            "name": arm.name,
                            "url": arm.url,
                            "arrangement": arm.arrangement,
                            "metrics": arm.metrics,
                            "api_key_env": arm.api_key_env,
                            "metrics_api_key_env": arm.metrics_api_key_env,
                            "configuration": configs.get(arm.name),
                            **identities[arm.name],
                        }
                    )
            capture.write({"kind": "call", "order": order, "arms": [arm.name for arm in arms]})
            models = {arm.name: identities[arm.name]["models"][0] for arm in arms}
            sequence = window_order(arms, settings, interleaved=order == "interleaved")
            await measure_windows(client, sequence, models, prompts, settings, session["salt"]["nonce"], capture, started, progress)
        finally:
            capture.close()
