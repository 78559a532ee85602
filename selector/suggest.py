"""Did-you-mean helper shared by every error message."""

from difflib import get_close_matches


def did_you_mean(value, allowed):
    """Return ``" (did you mean 'x'?)"`` for the closest allowed value, or ``""``."""
    if not isinstance(value, str):
        return ""
    match = get_close_matches(value, [str(a) for a in allowed], n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def allowed_list(allowed, limit=12):
    items = [repr(a) for a in allowed]
    if len(items) > limit:
        items = items[:limit] + [f"... {len(allowed) - limit} more"]
    return ", ".join(items)
