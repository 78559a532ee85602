"""selector.jsonschema_lite agrees with the reference `jsonschema` package.

The site validates with the small stdlib-only validator (it also runs in Pyodide); editors and
anyone reading /schema/ use a real draft 2020-12 validator.  Both must give the same verdict on
every real data file (valid) and on every schema case of the malformed-data corpus (invalid).
Files are loaded with the project's own loader (dates and yes/no stay text), not yaml.safe_load.
"""

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from bad_data import corpus
from conftest import ROOT
from selector.catalog import COLLECTIONS, SINGLETONS
from selector.files import load_schemas, parse_yaml_text
from selector.jsonschema_lite import SchemaSet, unknown_keywords

DATA = ROOT / "data"
SCHEMAS = load_schemas(DATA)
LITE = SchemaSet(SCHEMAS)
REGISTRY = Registry().with_resources((name, Resource.from_contents(schema)) for name, schema in SCHEMAS.items())
CASES = corpus.load_cases()
SCHEMA_CASES = [c for c in CASES if c["expect"]["check"] == "schema" and not c["loader"]]
SEMANTIC_CASES = [c for c in CASES if c["expect"]["check"] != "schema"]
# Deliberate divergence: JSON Schema counts 2.0 as an integer, jsonschema_lite does not, because the
# renderers use integer fields as integers ("●" * score).  A contributor gets "must be a whole number".
LITE_STRICTER = {"type-integer-float"}


def reference(schema_name):
    return Draft202012Validator(SCHEMAS[schema_name], registry=REGISTRY, format_checker=Draft202012Validator.FORMAT_CHECKER)


def schema_for(rel):
    """`data/engines/vllm.yaml` -> `engine.schema.json`; `data/tree.yaml` -> `tree.schema.json`."""
    parts = rel.split("/")
    if len(parts) == 3:
        return COLLECTIONS[parts[1]]
    return SINGLETONS[parts[1].removesuffix(".yaml")]


def data_files():
    out = [p for name in COLLECTIONS for p in sorted((DATA / name).glob("*.yaml"))]
    return out + [DATA / f"{name}.yaml" for name in SINGLETONS]


def verdicts(doc, schema_name):
    lite = LITE.validate(doc, schema_name)
    ref = [e.message for e in reference(schema_name).iter_errors(doc)]
    return lite, ref


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schema_is_valid_draft_2020_12(name):
    Draft202012Validator.check_schema(SCHEMAS[name])


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schema_uses_only_keywords_lite_implements(name):
    assert unknown_keywords(SCHEMAS[name]) == set()


def test_every_file_is_checked():
    files = data_files()
    assert len(files) > 90 and all(p.is_file() for p in files)


@pytest.mark.parametrize("path", data_files(), ids=lambda p: str(p.relative_to(DATA)))
def test_real_file_valid_in_both(path):
    rel = str(path.relative_to(ROOT))
    doc = parse_yaml_text(path.read_text(encoding="utf-8"))
    lite, ref = verdicts(doc, schema_for(rel))
    assert lite == [] and ref == [], (lite, ref)


def _case_doc(case, tmp_path):
    data_dir = corpus.build_case(case, tmp_path)
    rel = case["expect"]["file"]
    doc = parse_yaml_text((data_dir.parent / rel).read_text(encoding="utf-8"))
    return doc, schema_for(rel)


def test_enough_schema_cases():
    assert len(SCHEMA_CASES) >= 25
    assert LITE_STRICTER <= {c["id"] for c in SCHEMA_CASES}


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=lambda c: c["id"])
def test_schema_case_invalid_in_both(case, tmp_path):
    doc, schema_name = _case_doc(case, tmp_path)
    lite, ref = verdicts(doc, schema_name)
    assert any(path == case["expect"]["path"] for path, _ in lite), lite
    if case["id"] in LITE_STRICTER:
        assert ref == [], ref
    else:
        assert ref, f"jsonschema accepts what jsonschema_lite rejects: {lite}"


@pytest.mark.parametrize("case", SEMANTIC_CASES, ids=lambda c: c["id"])
def test_semantic_case_schema_valid_in_both(case, tmp_path):
    """Cases for the named checks edit a file that still passes its schema, in both validators."""
    doc, schema_name = _case_doc(case, tmp_path)
    lite, ref = verdicts(doc, schema_name)
    assert lite == [] and ref == [], (lite, ref)
