"""JSON Schema validation of data files with the ``jsonschema`` package, in the project's words.

Build side only: this module imports ``jsonschema`` and ``referencing`` (lazily, when a
:class:`SchemaSet` is made), so nothing the browser runs may import it (``api``, ``rules``,
``fit`` and ``catalog`` do not; a test proves they import with both packages blocked).

The schemas under ``data/schema`` are Draft 2020-12, checked against the meta-schema, their
``$ref``s resolved once through a ``referencing`` registry holding every schema file (the bundle:
looking each reference up again for every value costs twice the validation time), and validated
by jsonschema's ``Draft202012Validator``.  Two choices on top, through jsonschema's
public ``extend``: ``integer`` means a whole number written without a fraction (``2.0`` is
refused: the renderers use integer fields as integers), and ``uniqueItems`` compares items by
hash (jsonschema compares unsortable items pairwise).  Patterns stay in the part of regular
expressions that Python and JavaScript read alike (:func:`pattern_problem`), so editors and
this validator agree.  The formats ``line`` and ``prose`` refuse control and invisible characters.

Errors are turned into ``(path, message)`` pairs a contributor can act on: the field path
with list items named by id (``hardware[nvidia-ada].note``), allowed values and a
did-you-mean for enums and unknown fields, hints for indentation mistakes, and one message
per problem (a misspelled required field is reported once, as the misspelling).
"""

import json
import re

from .paths import name_parts
from selector.suggest import allowed_list, did_you_mean

_ANNOTATIONS = {"description", "title", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly"}
_DROP = {"$defs", "definitions", "$id", "$schema", "$anchor"}
_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a text", "integer": "a whole number",
               "number": "a number", "boolean": "true or false", "null": "empty"}
_PATTERN_HINTS = (
    ("^https://", "must be an https:// URL without spaces or quotes"),
    ("^[0-9]{4}", "must be a date written YYYY-MM-DD"),
    ("^[a-z0-9][a-z0-9.-]*$", "must be an id: lower-case letters, digits, '-' and '.'"),
    ("^[a-z0-9][a-z0-9_-]*$", "must be a key: lower-case letters, digits, '-' and '_'"),
)
SHORT = 60       # longest value quoted in a message
SHORT_URL = 200  # URLs are quoted whole up to this length
EXPLAINED = 30   # unknown fields worded per document; the rest are counted


class SchemaError(Exception):
    """A schema file that cannot be used: ``(schema file name, message)``."""

    def __init__(self, name, message):
        super().__init__(f"{name}: {message}")
        self.name, self.message = name, message


# -- patterns both Python and JavaScript read alike -------------------------------------------------

_ALIKE_GROUPS = ("(?:", "(?=", "(?!")
_END = r"$(?!\n)"  # Python's `$` also matches before a final line break; JavaScript's only at the end


def pattern_problem(pattern):
    """Why ``pattern`` may mean one thing to Python's ``re`` and another to a JavaScript editor, or None.

    The shared part: literal characters, escaped punctuation, ``\\n \\r \\t \\uXXXX``, character classes
    without shorthand escapes, quantifiers, ``(?:``, lookaheads, ``|``, ``^`` at the start and the end
    written ``$(?!\\n)``."""
    i, n, in_class = 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            nxt = pattern[i + 1:i + 2]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", pattern[i + 2:i + 6]):
                i += 6
                continue
            if not nxt or not (nxt in "nrt" or (not nxt.isalnum() and nxt != "_")):
                return f"\\{nxt} reads differently in Python and JavaScript; write the characters out ([0-9], [ \\t])"
            i += 2
            continue
        if in_class:
            if ch == "[":
                return "[ inside a character class reads differently in Python and JavaScript; escape it"
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":
                return "] first in a character class reads differently in Python and JavaScript; escape it"
        elif ch == ".":
            return ". reads differently in Python and JavaScript (line breaks); write a character class"
        elif ch == "(" and pattern[i + 1:i + 2] == "?" and not pattern.startswith(_ALIKE_GROUPS, i):
            return f"{pattern[i:i + 3]} reads differently in Python and JavaScript; use (?:, (?= or (?!"
        elif ch == "^" and i != 0:
            return "^ only at the start of the pattern"
        elif ch == "$":
            if pattern[i:] != _END:
                return f"end the pattern with {_END} (Python's $ also matches before a final line break)"
            return None
        elif ch == "{" and not re.match(r"\{\d+(,\d*)?\}", pattern[i:]):
            return "{ outside a quantifier reads differently in Python and JavaScript; escape it"
        i += 1
    return "unterminated character class" if in_class else None


# -- text that is not text -------------------------------------------------------------------------

def invisible(text, allowed="\t", categories=("Cc", "Cf")):
    """The first character of ``text`` in ``categories`` (control, format) and not in ``allowed``, or None."""
    if text.isprintable():
        return None
    import unicodedata
    return next((c for c in text if c not in allowed and unicodedata.category(c) in categories), None)


def format_checker():
    """``date`` as jsonschema checks it, and the project's two text formats: ``line`` (one-line text:
    no control character but tab, no format character such as U+200B or a bidi override) and ``prose``
    (no control character but tab and line break)."""
    from jsonschema import FormatChecker
    checker = FormatChecker(formats=("date",))
    checker.checks("line")(lambda value: not isinstance(value, str) or invisible(value) is None)
    checker.checks("prose")(lambda value: not isinstance(value, str) or invisible(value, "\t\n", ("Cc",)) is None)
    return checker


def _char_name(char):
    import unicodedata
    name = unicodedata.name(char, "")
    return f"the invisible character U+{ord(char):04X} {name}" if name else f"the control character U+{ord(char):04X}"


# -- the validator class -----------------------------------------------------------------------------

def _canonical(value):
    """A hashable stand-in for a JSON value, equal where JSON Schema calls values equal (1 == 1.0, true != 1)."""
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, float) and value.is_integer():
        return ("number", int(value))
    return ("number" if isinstance(value, (int, float)) else type(value).__name__, value)


def _unique_items(validator, unique, instance, schema):
    # jsonschema compares items pairwise when they do not sort (mappings, mixed types): quadratic in the list
    if unique and isinstance(instance, list):
        seen = set()
        for item in instance:
            mark = _canonical(item)
            if mark in seen:
                from jsonschema.exceptions import ValidationError
                yield ValidationError(f"{short(instance)} has non-unique elements")
                return
            seen.add(mark)


_CLASS = []


def validator_class():
    """Draft 2020-12 with whole-number integers and linear ``uniqueItems`` (see the module's docstring)."""
    if not _CLASS:
        from jsonschema import Draft202012Validator, validators
        checker = Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
        _CLASS.append(validators.extend(Draft202012Validator, {"uniqueItems": _unique_items}, type_checker=checker))
    return _CLASS[0]


# -- bundling ------------------------------------------------------------------------------------------

def bundle_schema(node, base, registry, trail):
    """``node`` with every ``$ref`` replaced by its target (resolved through ``registry`` against
    ``base``, the file it was written in); ``trail`` holds the references being expanded."""
    if isinstance(node, list):
        return [bundle_schema(v, base, registry, trail) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        import referencing.exceptions
        from urllib.parse import urljoin
        ref = node["$ref"]
        if not isinstance(ref, str):
            raise SchemaError(trail[0], f"$ref must be text, not {ref!r}")
        absolute = urljoin(base, ref)
        try:
            resolved = registry.resolver(base_uri=base).lookup(ref)
        except referencing.exceptions.Unresolvable:
            raise SchemaError(trail[0], f"$ref {ref!r} in {base} does not resolve to a schema; "
                                        "check the file name and the #/$defs/... path") from None
        rest = {k: bundle_schema(v, base, registry, trail) for k, v in node.items() if k != "$ref" and k not in _DROP}
        if absolute in trail:  # a recursive schema: keep the reference, resolved by the registry at run time
            return {**rest, "$ref": absolute}
        target = bundle_schema(resolved.contents, absolute.partition("#")[0] or base, registry, trail + (absolute,))
        if not isinstance(target, dict):
            return {**rest, "allOf": [target]}
        clash = (set(rest) - _ANNOTATIONS) & (set(target) - _ANNOTATIONS)
        if clash:
            return {**rest, "allOf": [target]}
        return {**target, **rest}
    out = {}
    for key, value in node.items():
        if key in _DROP:
            continue
        if key in ("enum", "const", "required", "default", "examples"):
            out[key] = value
        elif key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {k: bundle_schema(v, base, registry, trail) for k, v in value.items()}
        else:
            out[key] = bundle_schema(value, base, registry, trail)
    return out


def schema_patterns(node):
    """Every ``pattern`` in a schema (not inside enum, const or examples)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            elif key in ("properties", "patternProperties") and isinstance(value, dict):
                for sub in value.values():
                    yield from schema_patterns(sub)
            elif key not in ("enum", "const", "required", "default", "examples"):
                yield from schema_patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from schema_patterns(value)


_SETS = {}


def schema_set(schemas):
    """A :class:`SchemaSet` for ``schemas``, reused while the schema texts are the same
    (checking the schemas against the meta-schema is the slow part of making one)."""
    if _SETS.get("last", (None,))[0] is schemas:  # the same dict again (fix, one call per file)
        return _SETS["last"][1]
    key = json.dumps(schemas, sort_keys=True)
    found = _SETS.get(key)
    if found is None:
        found = SchemaSet(schemas)
        if len(_SETS) >= 4:
            _SETS.pop(next(iter(_SETS)))
        _SETS[key] = found
    _SETS["last"] = (schemas, found)
    return found


class SchemaSet:
    """Every schema of ``data/schema``, checked and bundled (:func:`bundle_schema`); validates documents by
    schema file name.  ``bundled`` also serves code that walks a schema beside a document (messages,
    the fixer's key order, the field guide, ``selector new``).

    Raises :class:`SchemaError` for a schema file that is not a valid Draft 2020-12 schema or whose
    references do not resolve."""

    def __init__(self, schemas):
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import SchemaError as JSError
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        self.schemas = schemas
        for name, schema in sorted(schemas.items()):
            try:
                Draft202012Validator.check_schema(schema)
            except JSError as exc:
                where = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
                raise SchemaError(name, f"is not a valid JSON Schema at {where}: {_cut(exc.message, 160)}") from None
            if schema.get("$id", name) != name:
                raise SchemaError(name, f"$id is {schema.get('$id')!r}; it must be the file name {name!r}")
            for pattern in schema_patterns(schema):
                why = pattern_problem(pattern)
                if why is None:
                    try:
                        re.compile(pattern)
                    except re.error as exc:
                        why = f"is not a valid regular expression ({exc})"
                if why:
                    raise SchemaError(name, f"pattern {pattern!r}: {why}")
        self.registry = Registry().with_resources(
            (name, Resource.from_contents(schema, default_specification=DRAFT202012)) for name, schema in schemas.items())
        cls, checker = validator_class(), format_checker()
        self.bundled, self.validators = {}, {}
        for name in sorted(schemas):
            self.bundled[name] = bundle_schema(schemas[name], name, self.registry, (name,))
            self.validators[name] = cls(self.bundled[name], registry=self.registry, format_checker=checker)

    def validate(self, instance, schema_name):
        """``[(path, message)]`` for one document; empty when it is valid."""
        validator = self.validators[schema_name]
        errors = list(validator.iter_errors(instance))
        if not errors:
            return []
        return _Report(instance, self.bundled[schema_name], errors).problems()


# -- messages ------------------------------------------------------------------------------------------

def _cut(text, limit):
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def short(value):
    """A value as it appears in a message: quoted text is cut inside its quotes (URLs are shown
    whole up to 200 characters), lists and mappings too long to show are described."""
    if isinstance(value, str):
        limit = SHORT_URL if value.startswith(("https://", "http://")) else SHORT
        return repr(_cut(value, limit))
    if isinstance(value, bool) or value is None:
        return json.dumps(value)  # true, false, null: as YAML writes them
    if isinstance(value, (list, dict)):
        text = repr(value)
        if len(text) <= SHORT:
            return text
        if isinstance(value, list):
            return f"of {len(value)} item{'s' * (len(value) != 1)}"
        return f"of {len(value)} key{'s' * (len(value) != 1)}"
    return _cut(repr(value), SHORT)


def type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


def _required_hint(key):
    if key == "source":
        return "; add `source: KEY` naming an entry of this file's `sources`"
    if key == "sources":
        return "; add a `sources:` map of citations (url, title, kind, as_of)"
    return ""


def _where(parts):
    return "the top level" if not parts else f"`{parts[-1]}`" if isinstance(parts[-1], str) else "this item"


def schema_properties(schema):
    """Property names a (bundled) object schema allows, following allOf."""
    if not isinstance(schema, dict):
        return {}
    out = dict(schema.get("properties") or {})
    for sub in schema.get("allOf") or []:
        out.update(schema_properties(sub))
    return out


def child_schema(schema, part):
    """The subschema that applies to ``part`` (a key or an index) of an instance of ``schema``."""
    if not isinstance(schema, dict):
        return None
    for sub in schema.get("allOf") or []:
        found = child_schema(sub, part)
        if found is not None:
            return found
    if isinstance(part, int):
        items = schema.get("items")
        return items if isinstance(items, dict) else None
    props = schema.get("properties") or {}
    if part in props:
        return props[part]
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def _schema_at(root, parts):
    node = root
    for part in parts:
        node = child_schema(node, part)
        if node is None:
            return None
    return node


def _object_schema(schema):
    """For a property's schema: the object schema of its value, or of its list items."""
    if not isinstance(schema, dict):
        return None
    if schema_properties(schema):
        return schema
    items = schema.get("items")
    if isinstance(items, dict) and schema_properties(items):
        return items
    return None


def _get(doc, parts):
    node = doc
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return node


def _unique_key(value):
    return json.dumps(value, sort_keys=True, default=repr) + type(value).__name__


class _Report:
    """Turns one document's jsonschema errors into ``(path, message)`` pairs."""

    def __init__(self, doc, schema, errors):
        self.doc, self.schema, self.errors = doc, schema, errors
        self.rows = {}  # (tuple parts, kind, detail) -> message
        self.nearest = {}  # parent path -> {key: nearest earlier known key}

    def add(self, parts, kind, message, detail=None):
        self.rows.setdefault((tuple(parts), kind, detail), message)

    def problems(self):
        for error in self.errors:
            self.one(error)
        self.explain_unknown_fields()
        by_path = {}
        for (parts, kind, detail), message in self.rows.items():
            by_path.setdefault(parts, []).append((kind, detail, message))
        out = []
        for parts, rows in by_path.items():
            kinds = {kind for kind, _, _ in rows}
            if "type" in kinds:  # the wrong kind of value: nothing else about it matters
                rows = [r for r in rows if r[0] == "type"]
            if "pattern" in kinds:  # the pattern already says how to write it
                rows = [r for r in rows if r[0] != "format"]
            if "unknown" in kinds:
                rows = [r for r in rows if r[0] != "key-name"]
            name = name_parts(self.doc, list(parts)) or "(top level)"
            out.extend((name, message) for _, _, message in rows)
        return out

    def one(self, error):
        parts = list(error.absolute_path)
        keyword, expected, value = error.validator, error.validator_value, error.instance
        if "propertyNames" in error.relative_schema_path:
            inner = self.message_for(keyword, expected, value, error)
            if inner is not None:
                inner = inner.removeprefix(f"{short(value)} ").removeprefix("is not allowed; ")
                joiner = "it " if inner.startswith("must") else ""
                self.add(parts + [value], "key-name", f"{value!r} is not a valid key name: {joiner}{inner}")
            return
        if keyword == "required":
            for key in expected:
                if isinstance(value, dict) and key not in value:
                    self.add(parts + [key], "required", f"is required but missing{_required_hint(key)}", key)
            return
        if keyword == "additionalProperties" and isinstance(value, dict):
            allowed = schema_properties(error.schema)
            for key in value:
                if key not in allowed:
                    self.add(parts + [key], "unknown", None, key)  # worded in explain_unknown_fields
            return
        if keyword == "uniqueItems" and isinstance(value, list):
            seen = set()
            for i, item in enumerate(value):
                mark = _unique_key(item)
                if mark in seen:
                    self.add(parts + [i], "unique", f"{short(item)} is listed twice; remove the repeat")
                seen.add(mark)
            return
        message = self.message_for(keyword, expected, value, error, parts)
        self.add(parts, keyword if keyword in ("type", "pattern", "format") else "other", message, keyword)

    def message_for(self, keyword, expected, value, error, parts=()):
        if keyword == "type":
            types = expected if isinstance(expected, list) else [expected]
            shown = " or ".join(_TYPE_WORDS.get(t, t) for t in types)
            if value is None and ("object" in types or "array" in types):
                key = parts[-1] if parts and isinstance(parts[-1], str) else None
                under = f" under `{key}:`" if key else ""
                return (f"must be {shown}, not empty (null); if its fields are on the lines below, "
                        f"indent them two more spaces{under}")
            if value is None:
                return f"must be {shown}, not empty (null); write a value or remove the field"
            message = f"must be {shown}, not {type_name(value)} {short(value)}".rstrip()
            if "object" in types and isinstance(value, list):
                message += "; write its fields as `key: value` lines without a leading `- `"
            elif "array" in types and isinstance(value, dict):
                message += "; start each item of a list with `- `"
            elif "array" in types and isinstance(value, str):
                message += "; write each item on its own line starting with `- `"
            return message
        if keyword == "enum":
            return f"{short(value)} is not allowed; use one of {allowed_list(expected)}{did_you_mean(value, expected)}"
        if keyword == "const":
            return f"must be {expected!r}"
        if keyword == "minimum":
            return f"{value} is below the minimum {expected}"
        if keyword == "exclusiveMinimum":
            return f"{value} must be greater than {expected}"
        if keyword == "maximum":
            return f"{value} is above the maximum {expected}"
        if keyword == "exclusiveMaximum":
            return f"{value} must be less than {expected}"
        if keyword == "minItems":
            return f"needs at least {expected} item(s)"
        if keyword == "maxItems":
            return f"has {len(value)} items; at most {expected} are allowed, split it into several files"
        if keyword == "minProperties":
            return f"needs at least {expected} entr{'y' if expected == 1 else 'ies'}"
        if keyword == "maxProperties":
            return f"has {len(value)} entries; at most {expected} are allowed"
        if keyword == "minLength":
            return "must not be empty" if expected <= 1 else f"is {len(value)} characters long; write at least {expected}"
        if keyword == "maxLength":
            return f"is {len(value)} characters long; shorten it to at most {expected}"
        if keyword == "pattern":
            if isinstance(value, str) and ("\n" in value or "\r" in value):
                if value.endswith("\n") and "\n" not in value[:-1]:
                    return (f"{short(value)} must be one line but ends with a line break; write it on one line "
                            "(a folded block needs `>-`, not `>`)")
                return f"{short(value)} must be one line; remove the line breaks"
            hint = next((m for p, m in _PATTERN_HINTS if expected.startswith(p)), f"must match the pattern {expected}")
            return f"{short(value)} {hint}"
        if keyword == "format":
            if expected == "date":
                return f"{short(value)} is not a real calendar date (YYYY-MM-DD)"
            if expected in ("line", "prose") and isinstance(value, str):
                char = invisible(value, "\t" if expected == "line" else "\t\n", ("Cc", "Cf") if expected == "line" else ("Cc",))
                return (f"contains {_char_name(char)}, which would reach the site unseen; delete it "
                        "(retype the text around it)")
            return f"{short(value)} is not a valid {expected}"
        if keyword in ("oneOf", "anyOf"):
            return "does not match exactly one of the allowed shapes" if keyword == "oneOf" else "does not match any of the allowed shapes"
        if keyword in ("not", "false"):
            return "is not allowed here"
        return _cut(error.message, 200)

    def explain_unknown_fields(self):
        """Word each unknown field: a did-you-mean for a misspelling, or where the field belongs when
        it is indented too much or too little; drop the "required but missing" that it explains.

        Only the first :data:`EXPLAINED` are worded (one more row counts the rest), and each looks at
        its nearest context only, so a file of many unknown keys costs time in proportion to its size."""
        unknown = [(list(parts), detail) for (parts, kind, detail) in self.rows if kind == "unknown"]
        required = {(parts, detail) for (parts, kind, detail) in self.rows if kind == "required"}
        explained = set()
        for full, key in unknown[EXPLAINED:]:
            del self.rows[(tuple(full), "unknown", key)]
        if len(unknown) > EXPLAINED:
            parent = unknown[EXPLAINED][0][:-1]
            self.rows[(tuple(parent), "unknown-more", None)] = (
                f"\u2026 and {len(unknown) - EXPLAINED} more unknown fields; fix the ones listed and validate again")
        for full, key in unknown[:EXPLAINED]:
            parent = full[:-1]
            here = _schema_at(self.schema, parent)
            allowed = schema_properties(here)
            wording = None
            guess = did_you_mean(key, allowed)
            name = guess.split("'")[1] if guess else None
            if guess and (tuple(parent + [name]), name) in required:  # a misspelled required field
                explained.add((tuple(parent + [name]), name))
                wording = f"is not a known field{guess[:-2]}? it is required here)"
            if wording is None:  # a field at the wrong indentation
                wording = self.misplaced(parent, key, explained)
            if wording is None and guess:
                wording = f"is not a known field{guess}"
            if wording is None and " " in str(key) and _get(self.doc, full) is None:
                # `{value: Python, C++ and CUDA}`: the comma ended the value and the rest became a key
                wording = ("is not a field: it looks like the rest of a value cut at a comma; inside `{...}` a comma "
                           "starts the next field, so put the whole value in quotes (value: \"a, b and c\")")
            if wording is None:
                wording = f"is not a known field; allowed: {allowed_list(sorted(allowed), 30)}"
            self.rows[(tuple(full), "unknown", key)] = wording
        for parts, name in explained:
            self.rows.pop((parts, "required", name), None)

    def misplaced(self, parent, key, explained):
        # indented too far: the field belongs to an enclosing mapping
        for depth in range(len(parent) - 1, -1, -1):
            outer = parent[:depth]
            outer_schema = _schema_at(self.schema, outer)
            container = _get(self.doc, outer)
            if key in schema_properties(outer_schema) and isinstance(container, dict) and key not in container:
                explained.add((tuple(outer + [key]), key))
                place = "at the top level" if not outer else f"under {_where(outer)}"
                return (f"is not a field of {_where(parent)}; `{key}` belongs {place}: "
                        f"indent it less, in line with {_where(parent)}")
        # indented too little: the field belongs to the nearest known field above it
        sibling = self.known_before(parent).get(key)
        if sibling is not None:
            target = _object_schema(child_schema(_schema_at(self.schema, parent), sibling))
            if target is not None and key in schema_properties(target):
                explained.add((tuple(parent + [sibling, key]), key))
                return (f"is not a known field of {_where(parent)}; `{key}` is a field of `{sibling}`: "
                        f"indent it under `{sibling}:`")
        return None

    def known_before(self, parent):
        """For the mapping at ``parent``: each key -> the nearest earlier key its schema knows (one pass, kept)."""
        found = self.nearest.get(tuple(parent))
        if found is None:
            container = _get(self.doc, parent)
            allowed = schema_properties(_schema_at(self.schema, parent))
            found, last = {}, None
            for name in container if isinstance(container, dict) else ():
                found[name] = last
                if name in allowed:
                    last = name
            self.nearest[tuple(parent)] = found
        return found
