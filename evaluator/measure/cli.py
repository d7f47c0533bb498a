"""`sdeval measure`: the arguments checked (arguments.py parses them), the measurement run, the record written.

Exit codes: 0 measured, no finding; 1 measured and the record written, with findings (failed
requests, counters that disagree with the client); 2 could not run (nothing overwritten).
"""

from __future__ import annotations

import asyncio
import datetime
import json
import re
import shlex
import sys
from pathlib import Path

from .._infra.exit_codes import EXIT_CANNOT_RUN, EXIT_FINDINGS, EXIT_OK
from .._infra.safe_text import shown
from . import configuration
from .answers import name_problem
from .arguments import ARRANGEMENTS, UsageError, merge_parser, parser, workload_parser
from .capture import Capture, MeasureProblem, capture_dir
from .credentials import Scrubber, arm_keys
from .loop import Arm, Settings
from .merge import PART, clock, merge
from .placement import Placement, merge_parts, workers_of
from .ray_workers import WorkerLost
from .task_windows import SALT_NOTE, check_run_ids, task_prompts, window_key
from .workers import measure_windows_in_workers

ARM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _settings_of(args) -> Settings:
    for name in ("repetitions", "max_tokens"):
        if getattr(args, name) < 1:
            raise MeasureProblem(f"--{name.replace('_', '-')} must be at least 1")
    if args.warmup < 0 or (args.requests is not None and args.requests < 1) or not args.timeout > 0 or not args.info_timeout > 0:
        raise MeasureProblem("--warmup must be 0 or more, --requests at least 1 and --timeout and --info-timeout above 0")
    if args.duration is not None and not 0 < args.duration <= 86400:
        raise MeasureProblem("--duration must be above 0 and at most a day (86400 s)")
    if args.duration is not None and args.requests is not None:
        raise MeasureProblem("give --requests N (windows by count) or --duration S (windows by time), not both")
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
        args.duration,
        args.info_timeout,
        args.per_task_windows,
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


# sdeval measure's subcommands: (parser, usage line, what runs them)
SUBCOMMANDS = {
    "merge": (merge_parser, "sdeval measure merge [OPTIONS] DIR...", lambda args: _merge(args)),
    "workload": (workload_parser, "sdeval measure workload [OPTIONS] RECORD", lambda args: _workload(args)),
}


def main(argv: list[str]) -> int:
    make, command, run = SUBCOMMANDS.get(argv[0], (None, "", None)) if argv else (None, "", None)
    try:
        args = make().parse_args(argv[1:]) if make is not None else parser().parse_args(argv)
    except UsageError as exc:
        command = command or "sdeval measure [OPTIONS]"
        print(f"Usage: {command}\nTry '{command.split(' [')[0]} -h' for help.\n\nError: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN  # a usage error, as click gives it
    try:
        return run(args) if run is not None else _measure(args, argv)
    except MeasureProblem as exc:
        for line in str(exc).splitlines():  # one line per problem (a configuration file can have several)
            print(f"sdeval: {shown(line)}", file=sys.stderr)  # it may quote what a server sent
        return EXIT_CANNOT_RUN


def _merge(args) -> int:
    from .._infra.atomic import refuse_output

    if (problem := refuse_output(args.output, force=False)) is not None:
        raise MeasureProblem(problem.replace("pass --force to replace it", "choose another -o"))
    capture, left_out = merge(args.parts, capture_dir(args.output))
    _say_left_out(left_out)
    session = next(e for e in capture.entries() if e["kind"] == "session")
    return max(_write_record(capture, session, [], args.output, force=False), EXIT_FINDINGS if left_out else EXIT_OK)


def _workload(args) -> int:
    from .workload import write

    written = write(args.record, args.output, args.prompts, args.concurrency)
    print(f"sdeval: wrote {written} requests to {shown(str(args.output))}", file=sys.stderr)
    return EXIT_OK


def _say_left_out(left_out: list[str]) -> None:
    for line in left_out:  # a window some process did not finish: named, never silently dropped
        print(f"sdeval: finding: {line}", file=sys.stderr)


def _measure(args, argv: list[str]) -> int:
    from .._infra.atomic import refuse_output
    from .progress import Progress
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
    # info_timeout_s is not a setting of the measurement; per_task_windows is said only when on, so
    # that a capture measured before the option existed resumes with the same settings
    measured = {k: v for k, v in settings.__dict__.items() if k != "info_timeout_s" and (k != "per_task_windows" or v)}
    labels = None
    if settings.per_task_windows:
        if args.workers not in (None, "1") or args.ray is not None:
            raise MeasureProblem("--per-task-windows does not work with --workers or --ray yet")
        labels = list(task_prompts(prompts, str(args.prompts or dataset)))  # a set of one task is refused here, before anything is sent
    check_run_ids((arm.name for arm in arms), settings.concurrencies, labels)
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
        "salt": {"scheme": SALT_SCHEME + (SALT_NOTE if settings.per_task_windows else ""), "nonce": new_nonce()},
    }
    parts = record_path.with_name(record_path.name + ".parts")  # each process's own capture, with --workers or --ray
    workers = workers_of(args.workers, args.ray, parts, continuing)
    secrets = tuple(secret for arm in arms for secret in arm.keys.secrets)
    in_parts = workers > 1 or args.ray is not None
    capture = Capture(parts / "driver", secrets=secrets) if in_parts else Capture(directory, secrets=secrets)
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
                keys = [*session["settings"], *(k for k in previous["settings"] if k not in session["settings"])]
                differing = [k for k in keys if previous["settings"].get(k) != session["settings"].get(k)]
                raise MeasureProblem(f"{capture.log}: was measured with other settings ({', '.join(differing)}); give the same ones")
            known_arms = [e for e in entries if e["kind"] == "arm"]
            for e in entries:  # per window: how often it was started; None once one attempt finished
                key = window_key(e)
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
        placement = Placement(workers, args.ray, prompts)
        left_out: list[str] = []
        try:
            asyncio.run(
                _run(arms, prompts, settings, capture, session, continuing, started, configs, known_arms, Progress(args.quiet), order, placement)
            )
        except WorkerLost as exc:  # a Ray worker's node died: its finished windows make the record, and --resume finishes it
            left_out.append(str(exc))
        if in_parts:  # the processes' captures, merged into the one the record is built from
            capture.unlock()
            capture, findings = merge_parts(parts, placement.workers, directory)
            capture.scrub = Scrubber(secrets)
            left_out += findings
            _say_left_out(left_out)
        return max(
            _write_record(capture, previous or session, known_arms, record_path, force=continuing),
            EXIT_FINDINGS if left_out else EXIT_OK,
        )
    except MeasureProblem as exc:  # it may quote what a server sent back, the key too
        raise MeasureProblem(capture.scrub.text(str(exc))) from None
    finally:
        capture.unlock()


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
    return EXIT_FINDINGS if findings else EXIT_OK


async def _run(
    arms, prompts, settings, capture, session, continuing, started, configs, known_arms, progress, order: str, placement: Placement
) -> None:
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
        placement.join()  # before anything is written: a cluster that cannot be joined leaves nothing behind
        if placement.in_parts and not continuing:
            capture.dir.parent.mkdir()
        capture.open(new=not continuing)
        try:
            if not continuing:
                capture.write(session)
            if placement.in_parts and not continuing:
                capture.write({"kind": PART, "role": "driver", "workers": placement.workers, "clock": clock()})
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
                            "metrics_api_key_env": arm.metrics_api_key_env,
                            "configuration": configs.get(arm.name),
                            **identities[arm.name],
                        }
                    )
                    capture.write(arm_lines[-1])
            call = {"kind": "call", "order": order, "arms": [arm.name for arm in arms]}
            capture.write(call)
            models = {arm.name: identities[arm.name]["models"][0] for arm in arms}
            tasks = list(task_prompts(prompts, "the prompts")) if settings.per_task_windows else None
            sequence = window_order(arms, settings, interleaved=order == "interleaved", tasks=tasks)
            if not placement.in_parts:
                await measure_windows(client, sequence, models, prompts, settings, session["salt"]["nonce"], capture, started, progress)
            else:
                pool = placement.pool(capture.dir.parent, session, arm_lines, call, arms, settings, continuing)
                try:
                    await measure_windows_in_workers(
                        client, sequence, models, prompts, settings, session["salt"]["nonce"], capture, pool, progress, started
                    )
                finally:
                    pool.close()
        finally:
            capture.close()
