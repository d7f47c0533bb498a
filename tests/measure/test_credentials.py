"""Where an API key goes: only to the origin it was given for, and out of everything written."""

from __future__ import annotations

import pytest

from evaluator.measure.capture import MeasureProblem
from evaluator.measure.credentials import REDACTED, Scrubber, arm_keys, origin, read_key


def test_an_origin_is_scheme_host_and_port_with_defaults_filled_in():
    assert origin("http://Gateway.Example:80/v1") == origin("HTTP://gateway.example/metrics") == ("http", "gateway.example", 80)
    assert origin("https://h/v1") == ("https", "h", 443)
    assert origin("http://h:8001") != origin("http://h:8002")
    assert origin("http://h:8001") != origin("https://h:8001")


def test_the_arm_key_goes_only_to_the_arms_origin_and_the_metrics_key_only_to_its_own(monkeypatch):
    monkeypatch.setenv("ARM_KEY", "sk-arm-0123456789")
    monkeypatch.setenv("METRICS_KEY", "mk-metrics-987654")
    keys = arm_keys("http://127.0.0.1:8001/v1", "ARM_KEY", ["http://127.0.0.1:9100/metrics"], None)
    assert keys.for_arm("http://127.0.0.1:8001/v1/chat/completions") == {"Authorization": "Bearer sk-arm-0123456789"}
    assert keys.for_metrics("http://127.0.0.1:8001/metrics") == {"Authorization": "Bearer sk-arm-0123456789"}  # same origin
    assert keys.for_metrics("http://127.0.0.1:9100/metrics") == {}  # another port: another origin
    assert keys.for_arm("https://127.0.0.1:8001/v1/models") == {}
    assert keys.for_arm("http://localhost:8001/v1/models") == {}
    both = arm_keys("http://127.0.0.1:8001/v1", "ARM_KEY", ["http://127.0.0.1:9100/metrics"], "METRICS_KEY")
    assert both.for_metrics("http://127.0.0.1:9100/metrics") == {"Authorization": "Bearer mk-metrics-987654"}
    assert both.for_arm("http://127.0.0.1:9100/v1/models") == {}  # the metrics key is for scrapes only
    assert both.secrets == ("sk-arm-0123456789", "mk-metrics-987654")
    same = arm_keys("http://127.0.0.1:8001/v1", "ARM_KEY", ["http://127.0.0.1:8001/metrics"], "METRICS_KEY")
    assert same.for_metrics("http://127.0.0.1:8001/metrics") == {"Authorization": "Bearer mk-metrics-987654"}
    assert same.for_arm("http://127.0.0.1:8001/v1/chat/completions") == {"Authorization": "Bearer sk-arm-0123456789"}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "--api-key-env VENDOR_KEY: the variable is not set"),
        ("", "--api-key-env VENDOR_KEY: the variable is empty"),
        (
            "sk-abc\r\nX-Evil: 1",
            "--api-key-env VENDOR_KEY: the key holds a character an HTTP header cannot carry (at character 7); "
            "an API key is printable ASCII without spaces",
        ),
    ],
)
def test_a_missing_or_unusable_key_is_one_line_naming_the_variable(monkeypatch, value, message):
    if value is None:
        monkeypatch.delenv("VENDOR_KEY", raising=False)
    else:
        monkeypatch.setenv("VENDOR_KEY", value)
    with pytest.raises(MeasureProblem) as caught:
        read_key("--api-key-env", "VENDOR_KEY", "http://h:1")
    assert str(caught.value) == message


def test_the_scrubber_removes_every_key_at_any_depth_in_keys_and_values():
    scrub = Scrubber(("sk-secret-1", "sk-secret-1-longer", ""))
    deep: object = "Bearer sk-secret-1"
    for _ in range(100_000):  # deeper than Python's recursion limit
        deep = [deep]
    entry = {"detail": "echo: Bearer sk-secret-1-longer", "sk-secret-1": 1, "n": 3, "deep": deep}
    out = scrub.value(entry)
    assert out["detail"] == f"echo: Bearer {REDACTED}"
    assert out[REDACTED] == 1 and out["n"] == 3
    inner = out["deep"]
    for _ in range(100_000):
        inner = inner[0]
    assert inner == f"Bearer {REDACTED}"
    assert entry["detail"] == "echo: Bearer sk-secret-1-longer"  # the original is left alone
    assert scrub.raw(b"# echo sk-secret-1\n") == f"# echo {REDACTED}\n".encode()
