"""WeasyPrint may fetch nothing but the report's own template assets.

By default WeasyPrint follows file:// and http:// links in markup and CSS, and a
<link rel="attachment"> copies any local file into the PDF. Vendor strings are escaped
by Jinja, but this fetcher is the second wall: every URL outside the templates
directory is refused, whatever the markup asks for.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit
from urllib.request import url2pathname

from weasyprint.urls import URLFetcher


class AllowListFetcher(URLFetcher):
    """Refuse every URL except file: URLs that resolve to a file inside `root`."""

    def __init__(self, root: str | os.PathLike, **kwargs) -> None:
        super().__init__(allowed_protocols={"file"}, allow_redirects=False, **kwargs)
        self.root = os.path.realpath(root)
        self.refused: list[str] = []

    def allows(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
            return False
        # url2pathname decodes %xx; realpath resolves .. and symlinks before the containment test.
        path = os.path.realpath(url2pathname(parts.path))
        return os.path.commonpath([path, self.root]) == self.root and os.path.isfile(path)

    def fetch(self, url, headers=None):
        if self.allows(url):
            return super().fetch(url, headers)
        self.refused.append(url)
        # WeasyPrint logs the refusal and renders on without the resource.
        raise ValueError(f"refused by sdeval's allow-list: {url}")
