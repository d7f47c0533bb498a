"""`sdeval measure`'s command line: argparse, because its per-arm flags (--metrics, --api-key-env,
--configuration, --arrangement) belong to the --arm before them, which click cannot say; its errors
are worded and laid out as every typer command's (click's form), with "did you mean"."""

from __future__ import annotations

import argparse
from pathlib import Path

from .bodies import INFO_DEADLINE_S

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
    """--metrics, --api-key-env, --metrics-api-key-env, --configuration and --arrangement belong to the --arm before them."""

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
        "`sdeval measure merge DIR... -o RECORD` merges worker processes' captures made elsewhere; "
        "`sdeval measure workload RECORD -o FILE` writes the requests a record measured for AIPerf to send again.",
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
        help="Environment variable holding a key for this arm's --metrics URLs only (another origin gets no key otherwise).",
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
        help='JSONL prompts: {"prompt": ...} or {"messages": [...]}, optional "task". Default: the shipped set for --endpoint (chat: chat, code, summarisation, maths; completions: prose, code, maths, list).',
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
        "--duration",
        type=float,
        metavar="S",
        help="Windows by time instead: each slot sends requests until S seconds have passed since the window began, then finishes its last one.",
    )
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
    p.add_argument(
        "--workers",
        default=None,
        metavar="N|auto",
        help="Client processes on this machine, each sending its share of every window's concurrency (auto: one per core). Default 1.",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS|auto",
        help="Place the workers as actors on this Ray cluster (needs sdeval[distributed]); --workers N of them (auto: the cluster's CPUs).",
    )
    p.add_argument(
        "--per-task-windows",
        action="store_true",
        help="Measure each task label of the prompts in its own windows (only its prompts; arms still interleaved): one run per arm, "
        "load and task, each with its own E/T, counts and paired speedup. It takes tasks x as long (every window keeps its "
        "--requests or --duration); a task window too short for a steady interval is counted whole, as any window is. "
        "A set of one task is refused; not with --workers or --ray yet.",
    )
    p.add_argument("--quiet", action="store_true", help="No progress bars.")
    return p


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


def workload_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="sdeval measure workload",
        allow_abbrev=False,
        description=(
            "Write the workload a measured RECORD sent, for AIPerf to send again (its single_turn JSONL: "
            '{"text", "output_length", "extra"}): every measured request once, in order, behind a salt with a fresh nonce '
            "(the same texts and token counts, a cold prompt cache), with the max_tokens and sampling measure sent."
        ),
    )
    p.add_argument("record", type=Path, metavar="RECORD", help="A record sdeval measure wrote (its capture, RECORD.capture/, beside it).")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="The JSONL file to write (never over an existing one).")
    p.add_argument("--prompts", type=Path, metavar="FILE", help="The prompts file the measurement was given (not needed for the shipped sets).")
    p.add_argument("--concurrency", type=int, metavar="C", help="Only the requests measured at this concurrency (default every load's).")
    return p
