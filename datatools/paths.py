"""Field paths in messages: ``quantization[fp8].hardware[0]``, ``rows[3].metrics``.

Standard library only.  A list item is named by its ``id`` when it has one that is
unique in its list (``hardware[nvidia-ada]``), otherwise by its index (``rows[3]``,
or the second of two items with the same id).
"""

import re

_TOKEN = re.compile(r"([^.\[\]]+)|\[([^\[\]]*)\]")
_NAMEABLE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}\Z")


def join(path, key):
    """``join("a", 0)`` -> ``a[0]``; ``join("a", "b")`` -> ``a.b``; ``join("", "b")`` -> ``b``."""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def item_name(items, index):
    """How ``items[index]`` is named in a path: its id when it has a unique one, else its index."""
    item = items[index]
    ident = item.get("id") if isinstance(item, dict) else None
    if isinstance(ident, str) and _NAMEABLE.match(ident):
        same = sum(1 for other in items if isinstance(other, dict) and other.get("id") == ident)
        if same == 1:
            return ident
    return str(index)


def name_parts(doc, parts):
    """Render a path given as a list of keys and indices, naming list items by id."""
    out, node = "", doc
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            if isinstance(node, list) and 0 <= part < len(node):
                out = f"{out}[{item_name(node, part)}]"
                node = node[part]
            else:
                out, node = f"{out}[{part}]", None
        else:
            out = join(out, part)
            node = node.get(part) if isinstance(node, dict) else None
    return out


def name_path(doc, path):
    """Rewrite a dotted path string (``branches[0].leaves[1].need``) with list items named by id.

    Mapping keys may themselves hold dots (ids such as ``deepseek-v3.2``): the longest key of
    the mapping that matches is taken.  Anything that does not resolve is kept as written."""
    if not path or path.startswith("line ") or path == "(top level)":
        return path
    tokens = []
    pos = 0
    for match in _TOKEN.finditer(path):
        if match.start() not in (pos, pos + 1):
            return path
        pos = match.end()
        if match.group(1) is not None:
            tokens.append(match.group(1))
        elif match.group(2).isdigit():
            tokens.append(int(match.group(2)))
        else:
            return path  # already named
    if pos != len(path):
        return path
    parts, node, i = [], doc, 0
    while i < len(tokens):
        token = tokens[i]
        if isinstance(token, int) or not isinstance(node, dict):
            parts.append(token)
            node = node[token] if isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node) else None
            i += 1
            continue
        # longest run of dotted tokens that is a key here
        j = i
        while j + 1 < len(tokens) and isinstance(tokens[j + 1], str):
            j += 1
        while j > i and ".".join(tokens[i:j + 1]) not in node:
            j -= 1
        key = ".".join(tokens[i:j + 1])
        parts.append(key)
        node = node.get(key)
        i = j + 1
    return name_parts(doc, parts)
