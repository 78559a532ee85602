"""Jinja2 templates for every piece of markup the build writes.

Templates live in ``macros/templates/`` and render with autoescape on, so any text that comes from
the data is escaped wherever it lands (element text or attribute). Renderers (:mod:`macros.views`)
hand them plain data; nothing here or there assembles markup in Python strings.

``url`` is the one filter that knows where the page is: it turns a site path (``engines/vllm/``)
into a link relative to the page being rendered, so the site works under any base path.
"""

import posixpath
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context, select_autoescape

TEMPLATES = Path(__file__).resolve().parent / "templates"


def rel(page_url, target):
    """Relative URL from the page at ``page_url`` (``engines/vllm/``) to ``target`` (``overview/#x``)."""
    path, _, frag = target.partition("#")
    base = posixpath.dirname(page_url.rstrip("/") + "/x") if page_url else ""
    if page_url and not page_url.endswith("/"):
        base = posixpath.dirname(page_url)
    out = posixpath.relpath(path or ".", base or ".") if path else ""
    if path.endswith("/") and out != "." and not out.endswith("/"):
        out += "/"
    if out == ".":
        out = "./"
    return out + (f"#{frag}" if frag else "")


@pass_context
def _url(context, target):
    return rel(context.get("page_url", ""), target)


@lru_cache(maxsize=1)
def environment():
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(enabled_extensions=("html", "xml"), default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["url"] = _url
    return env


def render(template, page_url="", **data):
    """Render ``templates/<template>`` with ``data``; every value is escaped by the template engine."""
    return environment().get_template(template).render(page_url=page_url, **data).strip()
