"""Small HTML helpers: every piece of data text goes through :func:`esc`."""

import html
import posixpath
import re

SUPPORT_TEXT = {"yes": "Yes", "partial": "Partial", "no": "No", "unknown": "Unknown"}
SUPPORT_MARK = {"yes": "✔", "partial": "◐", "no": "✘", "unknown": "?"}


def esc(value):
    return html.escape("" if value is None else str(value), quote=True)


def md_text(value):
    """Text safe inside Markdown (headings, list items): HTML-escaped and Markdown specials backslashed."""
    return re.sub(r"([\\`*_{}\[\]()#+!|~>-])", r"\\\1", esc(value))


def rel(page_url, target):
    """Relative URL from the page at ``page_url`` (e.g. ``engines/vllm/``) to ``target`` (``overview/#x``)."""
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


def badge(value, note=None):
    value = value or "unknown"
    title = f' title="{esc(note)}"' if note else ""
    return (f'<span class="iem-support iem-{esc(value)}"{title}>'
            f'<span aria-hidden="true">{SUPPORT_MARK.get(value, "?")}</span> {SUPPORT_TEXT.get(value, esc(value))}</span>')


def cite(source):
    """A small link to a citation; its title says kind and as-of date."""
    if not source:
        return ""
    label = source["kind"].replace("-", " ")
    title = f"{source['title']} ({label}, as of {source['as_of']})"
    return (f'<a class="iem-cite" href="{esc(source["url"])}" title="{esc(title)}" rel="noopener">'
            f'[{esc(label)}]</a>')


def table(headers, rows, caption=None, cls="iem-table"):
    """``headers`` and ``rows`` hold HTML already escaped by the caller."""
    head = "".join(f'<th scope="col">{h}</th>' for h in headers)
    body = "".join("<tr>" + "".join(
        (f'<th scope="row">{c}</th>' if i == 0 else f"<td>{c}</td>") for i, c in enumerate(row)) + "</tr>" for row in rows)
    cap = f"<caption>{caption}</caption>" if caption else ""
    return f'<div class="iem-scroll"><table class="{cls}">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def ul(items, cls=None):
    attr = f' class="{cls}"' if cls else ""
    return f"<ul{attr}>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def block(html_text):
    """Surround raw HTML with blank lines so Markdown leaves it alone."""
    return f"\n\n{html_text}\n\n"
