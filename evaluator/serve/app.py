"""The ASGI app behind `sdeval serve` (Starlette) and the loop that runs it (uvicorn).

GET  /?token=T      the form page, with the token and (optionally) a record to start from
POST /assess        the record the page holds, as JSON text, with header X-Sdeval-Token: T;
                    answers {"document": what `assess --format json` prints, "text": what
                    `assess` prints, "exit": its exit status, "reason": its exit line,
                    "asks_heading": whom its requests address, "tasks": run id -> the per-task
                    table and the per-request histograms as the PDF shows them (present/task_view),
                    "measured": each claim's measured interval as `assess` words it, or null}
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..engine.loader import DEFAULT_MAX_BYTES
from ..form.page import render_form
from ..pipeline import CannotRun, ProfileInput, reassess

TOKEN_HEADER = "X-Sdeval-Token"
# The page and its answers never leave this machine, are never cached, never framed, and the
# token in the address is never sent on as a referrer.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
        "img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}


@dataclass(frozen=True)
class Served:
    token: str
    port: int
    profile: ProfileInput | None = None
    # A record to start from: (file name, its text), as `sdeval serve FILE` read it.
    initial: tuple[str, str] | None = None
    # `serve --references FILE`: independent results (name, bytes), read once at start, set beside each claim.
    references: tuple[tuple[str, bytes], ...] = ()

    # The form's record is assessed under this name, as the page's JSON (what Save writes): the
    # lines a finding names are that text's, not those of a file it started from.
    record_name: str = "form.json"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def make_app(served: Served) -> Starlette:
    page = render_form(
        served={
            "token": served.token,
            "profile": None if served.profile is None else os.path.basename(served.profile.path),
            "initial": None if served.initial is None else {"name": os.path.basename(served.initial[0]), "text": served.initial[1]},
        }
    )
    allowed_hosts = {f"127.0.0.1:{served.port}", f"localhost:{served.port}"}

    def refused(request: Request, *, header: bool) -> Response | None:
        if request.headers.get("host") not in allowed_hosts:
            return PlainTextResponse("sdeval serve answers only at 127.0.0.1 (this Host is not it)\n", 403, headers=SECURITY_HEADERS)
        given = request.headers.get(TOKEN_HEADER, "") if header else request.query_params.get("token", "")
        if not hmac.compare_digest(given.encode(), served.token.encode()):
            where = f"the {TOKEN_HEADER} header" if header else "the address"
            return PlainTextResponse(f"sdeval serve: {where} lacks this server's token; open the URL it printed\n", 403, headers=SECURITY_HEADERS)
        return None

    async def form(request: Request) -> Response:
        return refused(request, header=False) or HTMLResponse(page, headers=SECURITY_HEADERS)

    async def assess(request: Request) -> Response:
        if (answer := refused(request, header=True)) is not None:
            return answer
        body = bytearray()
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > DEFAULT_MAX_BYTES:
                    return JSONResponse({"error": f"the record is over {DEFAULT_MAX_BYTES} bytes"}, 413, headers=SECURITY_HEADERS)
        except ClientDisconnect:
            # The page was closed or reloaded while it sent: nobody is left to answer, and nothing
            # went wrong on this side, so the serve terminal stays quiet (no traceback).
            return Response(status_code=400, headers=SECURITY_HEADERS)
        try:
            assessed = await run_in_threadpool(assess_record, served, bytes(body))
        except CannotRun as exc:
            return JSONResponse({"error": str(exc)}, 422, headers=SECURITY_HEADERS)
        return JSONResponse(assessed, headers=SECURITY_HEADERS)

    return Starlette(routes=[Route("/", form, methods=["GET"]), Route("/assess", assess, methods=["POST"])])


def assess_record(served: Served, raw: bytes) -> dict:
    """The record assessed as `sdeval assess [--requirements PROFILE]` assesses a file."""
    from ..engine.wording import interval_text
    from ..present import REPORTER_BY_NAME
    from ..present.task_view import task_view

    assessed = reassess([(served.record_name, raw)], served.profile, list(served.references))
    text = REPORTER_BY_NAME["text"](assessed.results, True, assessed.comparison)
    if assessed.reference_comparison is not None:
        from ..present.references_text import sources_block

        text += "\n" + sources_block(assessed.reference_comparison)
    return {
        "document": assessed.document,
        "text": text,
        "exit": assessed.exit_code,
        "reason": assessed.exit_reason(),
        "asks_heading": assessed.results[0].asks_heading,  # whom the asks address (offer.source), as the terminal says
        "tasks": task_view(assessed.results[0]),  # record 1.3 per_task and request_acceptance, shown under each run
        # each claim's measured 95 % interval in the text report's words, in the document's claim order (None: no interval)
        "measured": [interval_text(c.interval) if c.interval is not None else None for c in assessed.results[0].claims],
    }


def run(served: Served, sock, announce) -> None:
    """Serve on an already bound loopback socket until interrupted; `announce` is called once it listens."""
    import uvicorn

    config = uvicorn.Config(make_app(served), log_level="warning", lifespan="off", access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)

    original = server.startup

    async def startup(sockets=None):
        await original(sockets=sockets)
        if server.started:
            announce()

    server.startup = startup  # type: ignore[method-assign]  # uvicorn's own startup, then the announcement
    server.run(sockets=[sock])
