"""A small JSON Schema (draft 2020-12 subset) validator, standard library only.

It covers exactly the keywords the schemas in ``data/schema`` use, and words its
messages for contributors: each problem is ``(path, message)`` where ``path`` is
a field path such as ``quantization[3].hardware``.  The tests check that its
verdicts agree with the reference ``jsonschema`` package on the real data and on
the malformed corpus, and that the schemas use no keyword it does not know.
"""

import re
from datetime import date

from .suggest import allowed_list, did_you_mean

KNOWN_KEYWORDS = {
    "$schema", "$id", "$defs", "$ref", "title", "description", "type", "required",
    "properties", "additionalProperties", "propertyNames", "minProperties", "enum",
    "pattern", "format", "minLength", "maxLength", "items", "minItems", "uniqueItems",
    "minimum", "maximum", "exclusiveMinimum", "oneOf", "const", "default", "examples",
}

_TYPES = {
    "object": dict, "array": list, "string": str, "boolean": bool,
}


def _type_ok(value, expected):
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected == "null":
        return value is None
    return isinstance(value, _TYPES[expected])


def _type_name(value):
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


def join(path, key):
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


class SchemaSet:
    """Schemas by file name (``engine.schema.json``), resolving ``$ref`` between them."""

    def __init__(self, schemas):
        self.schemas = schemas

    def resolve(self, ref, base):
        doc_name, _, pointer = ref.partition("#")
        doc_name = doc_name or base
        node = self.schemas[doc_name]
        for part in [p for p in pointer.split("/") if p]:
            node = node[part]
        return node, doc_name

    def validate(self, instance, schema_name):
        problems = []
        self._check(instance, self.schemas[schema_name], schema_name, "", problems)
        return problems

    def _check(self, value, schema, base, path, out):
        if "$ref" in schema:
            target, target_base = self.resolve(schema["$ref"], base)
            self._check(value, target, target_base, path, out)
            return
        where = path or "(top level)"
        if "type" in schema:
            expected = schema["type"]
            if not _type_ok(value, expected):
                shown = {"object": "a mapping", "array": "a list", "string": "a text",
                         "integer": "a whole number", "number": "a number",
                         "boolean": "true or false"}.get(expected, expected)
                out.append((where, f"must be {shown}, not {_type_name(value)} {_short(value)}"))
                return
        if "const" in schema and value != schema["const"]:
            out.append((where, f"must be {schema['const']!r}"))
        if "enum" in schema and value not in schema["enum"]:
            out.append((where, f"{_short(value)} is not allowed; use one of {allowed_list(schema['enum'])}"
                               f"{did_you_mean(value, schema['enum'])}"))
            return
        if isinstance(value, str):
            self._string(value, schema, where, out)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                out.append((where, f"{value} is below the minimum {schema['minimum']}"))
            if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
                out.append((where, f"{value} must be greater than {schema['exclusiveMinimum']}"))
            if "maximum" in schema and value > schema["maximum"]:
                out.append((where, f"{value} is above the maximum {schema['maximum']}"))
        if isinstance(value, list):
            if "minItems" in schema and len(value) < schema["minItems"]:
                out.append((where, f"needs at least {schema['minItems']} item(s)"))
            if schema.get("uniqueItems"):
                seen = []
                for i, item in enumerate(value):
                    if item in seen:
                        out.append((join(path, i), f"{_short(item)} is listed twice; remove the repeat"))
                    seen.append(item)
            if "items" in schema:
                for i, item in enumerate(value):
                    self._check(item, schema["items"], base, join(path, i), out)
        if isinstance(value, dict):
            self._object(value, schema, base, path, where, out)
        if "oneOf" in schema:
            matches = 0
            for option in schema["oneOf"]:
                trial = []
                self._check(value, option, base, path, trial)
                matches += not trial
            if matches != 1:
                out.append((where, "does not match exactly one of the allowed shapes"))

    def _string(self, value, schema, where, out):
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append((where, "must not be empty"))
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append((where, f"is {len(value)} characters long; shorten it to at most {schema['maxLength']}"))
        if "pattern" in schema and not re.search(schema["pattern"], value):
            hint = {
                "^https://": "must be an https:// URL without spaces or quotes",
                "^[0-9]{4}": "must be a date written YYYY-MM-DD",
                "^[a-z0-9][a-z0-9.-]*$": "must be an id: lower-case letters, digits, '-' and '.'",
                "^[a-z0-9][a-z0-9_-]*$": "must be a key: lower-case letters, digits, '-' and '_'",
                "^[A-Za-z0-9](?:": "must be a term: letters, digits, '.', '+', '/' and '-', starting and ending with a letter or digit",
            }
            msg = next((m for p, m in hint.items() if schema["pattern"].startswith(p)),
                       f"must match the pattern {schema['pattern']}")
            out.append((where, f"{_short(value)} {msg}"))
            return
        if schema.get("format") == "date":
            try:
                date.fromisoformat(value)
            except ValueError:
                out.append((where, f"{_short(value)} is not a real calendar date (YYYY-MM-DD)"))

    def _object(self, value, schema, base, path, where, out):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                out.append((join(path, key), f"is required but missing{_required_hint(key)}"))
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            out.append((where, f"needs at least {schema['minProperties']} entr{'y' if schema['minProperties'] == 1 else 'ies'}"))
        names = schema.get("propertyNames")
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if not isinstance(key, str):
                out.append((where, f"key {key!r} must be text; quote it"))
                continue
            if names is not None:
                trial = []
                self._check(key, names, base, join(path, key), trial)
                if trial:
                    out.append((join(path, key), f"{key!r} is not a valid key name: {trial[0][1]}"))
                    continue
            if key in props:
                self._check(item, props[key], base, join(path, key), out)
            elif extra is False:
                out.append((join(path, key), f"is not a known field; allowed: {allowed_list(sorted(props), 30)}"
                                             f"{did_you_mean(key, props)}"))
            elif isinstance(extra, dict):
                self._check(item, extra, base, join(path, key), out)


def _required_hint(key):
    if key == "source":
        return "; add `source: KEY` naming an entry of this file's `sources`"
    if key == "sources":
        return "; add a `sources:` map of citations (url, title, kind, as_of)"
    return ""


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def unknown_keywords(schema, found=None):
    """Keywords a schema uses that this validator does not implement (for a test)."""
    found = set() if found is None else found
    if isinstance(schema, dict):
        for key, val in schema.items():
            if key not in KNOWN_KEYWORDS:
                found.add(key)
            if key in ("properties", "$defs"):
                for sub in val.values():
                    unknown_keywords(sub, found)
            elif key in ("items", "additionalProperties", "propertyNames") and isinstance(val, dict):
                unknown_keywords(val, found)
            elif key == "oneOf":
                for sub in val:
                    unknown_keywords(sub, found)
    return found
