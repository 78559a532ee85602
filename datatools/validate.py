"""Validation of the whole catalog: the JSON Schemas first, then the named checks of :mod:`datatools.checks`."""

from dataclasses import replace

from selector.catalog import COLLECTIONS, SINGLETONS

from .checks import run_checks
from .paths import name_path
from .problem import Problem
from .validation import SchemaError, schema_set


def validate(raw, files, schemas, today=None, schema_file=None, unreadable=(), checked=None, doc_rows=None, removed=frozenset()):
    """Schema problems first, then semantic checks (only on files that passed the schema).

    Build side only: the schemas are checked with the ``jsonschema`` package
    (:mod:`datatools.validation`).
    Field paths in every message name list items by id where they have one.

    A file that could not be read or failed its schema is reported once: references to its
    id from other files, and scenario answers (which depend on every engine), are not
    reported again as unknown or wrong.  ``unreadable`` holds ``(collection, id)`` of files
    that exist but could not be read; ``checked`` maps ``(collection, id)`` to the schema
    problems already found while reading (see :func:`datatools.files.load_data_dir`), and ``doc_rows``
    the rows of the one-document checks run there."""
    try:
        schemas_ok = schema_set(schemas)
    except SchemaError as exc:
        where = schema_file(exc.name) if schema_file else f"data/schema/{exc.name}"
        return {name: {} for name in COLLECTIONS}, [Problem(where, "", exc.message)]
    problems = []
    clean = {name: {} for name in COLLECTIONS}
    for name, schema_name in COLLECTIONS.items():
        for entry_id, doc in raw.get(name, {}).items():
            found = (checked or {}).get((name, entry_id))
            if found is None:
                found = schemas_ok.validate(doc, schema_name)
            problems.extend(Problem(files.get((name, entry_id), f"{name}/{entry_id}"), p, m) for p, m in found)
            if not found:
                clean[name][entry_id] = doc
    for name, schema_name in SINGLETONS.items():
        if name not in raw:
            continue
        found = (checked or {}).get((name, None))
        if found is None:
            found = schemas_ok.validate(raw[name], schema_name)
        problems.extend(Problem(files.get((name, None), f"{name}.yaml"), p, m) for p, m in found)
        if not found:
            clean[name] = raw[name]
    broken = set(unreadable) | {(name, key) for name in COLLECTIONS for key in raw.get(name, {}) if key not in clean[name]}
    broken |= {(name, None) for name in SINGLETONS if name in raw and name not in clean}
    follow_on = {f"; add data/{name}/{key}.yaml or fix the id" for name, key in broken if key is not None}
    questions_broken = any(name in ("tree", "questions") for name, _ in broken)
    docs = {path: (clean.get(name) if key is None else clean[name].get(key)) for (name, key), path in files.items()}
    for p in run_checks(clean, files, today=today, done=doc_rows, removed=removed):
        if any(p.message.endswith(tail) for tail in follow_on) or (questions_broken and p.check == "scenarios-answers"):
            continue
        doc = docs.get(p.file)
        named = name_path(doc, p.path) if doc else p.path
        problems.append(p if named == p.path else replace(p, path=named))
    return clean, problems
