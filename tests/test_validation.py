"""Schema validation with the `jsonschema` package (datatools/validation.py), worded for contributors.

The schemas are Draft 2020-12, validated by jsonschema's own validator with a `referencing` registry;
patterns stay in the part Python and JavaScript read alike; integers are whole numbers.
The message rules (paths naming list items by id, did-you-mean, indentation hints, one message per
problem, values cut inside their quotes) are checked on small documents here and on the whole
malformed-data corpus in test_bad_data.py.
"""

import copy
import re
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from bad_data import corpus
from conftest import ROOT
from selector.catalog import COLLECTIONS, SINGLETONS
from datatools.files import load_data_dir, load_schemas, parse_yaml_text
from datatools.validation import SchemaError, SchemaSet, schema_patterns, pattern_problem, short

DATA = ROOT / "data"
SCHEMAS = load_schemas(DATA)
SCHEMA_SET = SchemaSet(SCHEMAS)


def doc(rel):
    return parse_yaml_text((DATA / rel).read_text(encoding="utf-8"))


def schema_for(rel):
    parts = rel.split("/")
    return COLLECTIONS[parts[0]] if len(parts) == 2 else SINGLETONS[parts[0].removesuffix(".yaml")]


def errors(document, schema="engine.schema.json"):
    return SCHEMA_SET.validate(document, schema)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schema_is_valid_draft_2020_12(name):
    Draft202012Validator.check_schema(SCHEMAS[name])


def test_every_real_file_is_valid():
    files = [f"{name}/{p.name}" for name in COLLECTIONS for p in sorted((DATA / name).glob("*.yaml"))]
    files += [f"{name}.yaml" for name in SINGLETONS]
    assert len(files) > 100
    for rel in files:
        assert errors(doc(rel), schema_for(rel)) == [], rel


# -- patterns Python and JavaScript read alike ----------------------------------------------------------

def test_every_schema_pattern_reads_alike_in_python_and_javascript():
    patterns = [p for schema in SCHEMAS.values() for p in schema_patterns(schema)]
    assert len(patterns) > 10
    assert {p: pattern_problem(p) for p in patterns if pattern_problem(p)} == {}


@pytest.mark.parametrize("pattern,fragment", [
    ("^[a-z0-9][a-z0-9.-]*$", "end the pattern with $(?!\\n)"),   # re.search would take "vllm\n"
    ("^a.c$(?!\\n)", ". reads differently"),                        # JavaScript's . is no line terminator
    ("^\\d+$(?!\\n)", "\\d reads differently"),                    # Python's \d takes Arabic digits
    ("^https://[^\\s]+$(?!\\n)", "\\s reads differently"),           # U+001C is \s in Python only
    ("^(?P<x>a)$(?!\\n)", "(?P reads differently"),
    ("^(?i)a$(?!\\n)", "(?i reads differently"),
    ("^[]a]$(?!\\n)", "] first in a character class"),
    ("^a$(?!\\n)b", "end the pattern with"),
    ("a{", "{ outside a quantifier"),
])
def test_pattern_lint_names_what_reads_differently(pattern, fragment):
    assert fragment in (pattern_problem(pattern) or ""), pattern_problem(pattern)


@pytest.mark.parametrize("pattern,text,matches", [
    ("^[a-z0-9][a-z0-9.-]*$(?!\\n)", "vllm", True),
    ("^[a-z0-9][a-z0-9.-]*$(?!\\n)", "vllm\n", False),
    ("^[^\\n\\r]*$(?!\\n)", "ends\n", False),
    ("^a\\$$(?!\\n)", "a$", True),
    ("^[$.]+$(?!\\n)", "$.$", True),
])
def test_alike_patterns_mean_what_javascript_means(pattern, text, matches):
    assert pattern_problem(pattern) is None
    assert bool(re.search(pattern, text)) is matches


def test_a_pattern_outside_the_shared_part_is_a_schema_error():
    schemas = copy.deepcopy(SCHEMAS)
    schemas["common.schema.json"]["$defs"]["id"]["pattern"] = "^[a-z0-9][a-z0-9.-]*$"
    with pytest.raises(SchemaError) as info:
        SchemaSet(schemas)
    assert info.value.message.startswith("pattern '^[a-z0-9][a-z0-9.-]*$': end the pattern with $(?!\\n)")


def test_trailing_newline_in_an_id_fails():
    engine = doc("engines/vllm.yaml")
    engine["id"] = "vllm\n"
    engine["hardware"][0]["id"] = "cpu\n"
    found = dict(errors(engine))
    assert "must be one line but ends with a line break" in found["id"]
    assert any(path.startswith("hardware[") and path.endswith("].id") for path in found)


def test_one_line_texts_refuse_line_breaks():
    engine = doc("engines/vllm.yaml")
    engine["name"] = "vLLM\n"          # a `>` block where `>-` was meant
    engine["maintainer"]["value"] = "two\nlines"
    found = dict(errors(engine))
    assert found["name"].startswith("'vLLM\\n' must be one line but ends with a line break")
    assert "`>-`" in found["name"]
    assert found["maintainer.value"] == "'two\\nlines' must be one line; remove the line breaks"


def test_integers_are_whole_numbers():
    dim = doc("matrix/latency.yaml")
    dim["order"] = 2.0
    assert errors(dim, "dimension.schema.json") == [("order", "must be a whole number, not number 2.0")]


# -- messages ---------------------------------------------------------------------------------------

def test_list_items_are_named_by_id():
    engine = doc("engines/vllm.yaml")
    ada = next(i for i, h in enumerate(engine["hardware"]) if h["id"] == "nvidia-ada")
    engine["hardware"][ada]["support"] = "maybe"
    engine["quantization"][0]["note"] = 7       # fp8 appears twice: named by index
    found = dict(errors(engine))
    assert "hardware[nvidia-ada].support" in found
    assert "quantization[0].note" in found


def test_misspelled_required_field_is_one_message():
    engine = doc("engines/vllm.yaml")
    engine["nmae"] = engine.pop("name")
    assert errors(engine) == [("nmae", "is not a known field (did you mean 'name'? it is required here)")]


def test_misspelled_optional_field_gets_did_you_mean():
    engine = doc("engines/vllm.yaml")
    engine["summry"] = engine.pop("summary")
    assert errors(engine) == [("summry", "is not a known field (did you mean 'summary'?)")]


def test_unknown_field_lists_allowed_fields():
    engine = doc("engines/vllm.yaml")
    engine["colour"] = "red"
    [(path, message)] = errors(engine)
    assert path == "colour" and message.startswith("is not a known field; allowed: 'avoid_when', 'features'")


DEDENTED = """\
status:
value: active
since: 2023-06-20
source: launch-blog
"""


def test_dedented_block_gets_an_indentation_hint():
    text = (DATA / "engines/vllm.yaml").read_text(encoding="utf-8")
    start = text.index("\nstatus:\n") + 1
    end = text.index("\npositioning:")
    block = text[start:end]
    dedented = "\n".join(line[2:] if line.startswith("  ") else line for line in block.split("\n"))
    document = parse_yaml_text(text[:start] + dedented + text[end:])  # still valid YAML
    found = dict(errors(document))
    assert found["status"].startswith("must be a mapping, not empty (null); if its fields are on the lines below, "
                                      "indent them two more spaces under `status:`")
    assert found["since"] == "is not a known field of the top level; `since` is a field of `status`: indent it under `status:`"
    assert "is a field of `status`" in found["value"]


def test_over_indented_field_is_placed_and_not_reported_missing():
    engine = doc("engines/vllm.yaml")
    engine["status"]["pick_when"] = engine.pop("pick_when")
    assert errors(engine) == [("status.pick_when", "is not a field of `status`; `pick_when` belongs at the top level: "
                                                   "indent it less, in line with `status`")]


def test_list_where_a_mapping_belongs_and_back():
    engine = doc("engines/vllm.yaml")
    engine["status"] = [engine["status"]]
    engine["pick_when"] = {"a": "b"}
    found = dict(errors(engine))
    assert found["status"].startswith("must be a mapping, not list")
    assert found["status"].endswith("write its fields as `key: value` lines without a leading `- `")
    assert found["pick_when"].endswith("start each item of a list with `- `")


def test_values_are_cut_inside_their_quotes():
    long_text = "x" * 300
    assert short(long_text) == repr("x" * 59 + "\u2026")
    url = "https://example.org/" + "a" * 150
    assert short(url) == repr(url)  # a URL up to 200 characters is shown whole
    assert short(list(range(100))) == "of 100 items"
    engine = doc("engines/vllm.yaml")
    engine["homepage"] = "http://" + "a" * 300
    [(path, message)] = errors(engine)
    quoted = message.split(" must be")[0]
    assert path == "homepage" and quoted.startswith("'http://") and quoted.endswith("\u2026'")


def test_every_problem_of_a_file_is_reported_once():
    engine = doc("engines/vllm.yaml")
    engine["sources"]["repo"]["as_of"] = "29/11/2026"  # fails the pattern and the date format
    assert errors(engine) == [("sources.repo.as_of", "'29/11/2026' must be a date written YYYY-MM-DD")]


# -- schema files ----------------------------------------------------------------------------------

def test_bundled_schemas_keep_recursive_references():
    schemas = {
        "node.schema.json": {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "node.schema.json",
                             "type": "object", "required": ["id"], "additionalProperties": False,
                             "properties": {"id": {"$ref": "common.schema.json#/$defs/id"},
                                            "children": {"type": "array", "items": {"$ref": "#"}}}},
        "common.schema.json": SCHEMAS["common.schema.json"],
    }
    tree = SchemaSet(schemas)
    assert tree.validate({"id": "a", "children": [{"id": "b", "children": [{"id": "c"}]}]}, "node.schema.json") == []
    assert tree.validate({"id": "a", "children": [{"id": "b", "children": [{"id": "C"}]}]}, "node.schema.json") == [
        ("children[b].children[0].id", "'C' must be an id: lower-case letters, digits, '-' and '.'")]


@pytest.mark.parametrize("edit,fragment", [
    (lambda s: s["engine.schema.json"]["properties"]["id"].update({"$ref": "common.schema.json#/$defs/idd"}), "does not resolve"),
    (lambda s: s["engine.schema.json"].update({"type": "thing"}), "is not a valid JSON Schema"),
    (lambda s: s["common.schema.json"]["$defs"]["id"].update({"pattern": "([a-z"}), "is not a valid"),
    (lambda s: s["engine.schema.json"].update({"$id": "other.json"}), "it must be the file name"),
])
def test_a_broken_schema_is_one_error(edit, fragment):
    schemas = copy.deepcopy(SCHEMAS)
    edit(schemas)
    with pytest.raises(SchemaError) as info:
        SchemaSet(schemas)
    assert fragment in info.value.message


def run_validate(data_dir):
    return subprocess.run([sys.executable, "-m", "selector", "validate", str(data_dir)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("action,line", [
    ("remove", "data/schema/engine.schema.json: schema file is missing"),
    ("garble", "data/schema/engine.schema.json: line 1: is not valid JSON"),
    ("ref", "data/schema/engine.schema.json: $ref 'common.schema.json#/$defs/nothing' in engine.schema.json does not resolve"),
    ("folder", "data/schema: schema folder is missing"),
])
def test_schema_file_problems_are_one_line_in_the_cli(tmp_path, action, line):
    import shutil
    data_dir = tmp_path / "data"
    shutil.copytree(DATA, data_dir)
    target = data_dir / "schema" / "engine.schema.json"
    if action == "remove":
        target.unlink()
    elif action == "garble":
        target.write_text("{not json", encoding="utf-8")
    elif action == "ref":
        target.write_text(target.read_text(encoding="utf-8").replace("common.schema.json#/$defs/id\"", "common.schema.json#/$defs/nothing\"", 1),
                          encoding="utf-8")
    else:
        shutil.rmtree(data_dir / "schema")
    proc = run_validate(data_dir)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(line), proc.stdout


def test_load_data_dir_stops_at_a_broken_schema(tmp_path):
    import shutil
    data_dir = tmp_path / "data"
    shutil.copytree(DATA, data_dir)
    (data_dir / "schema" / "common.schema.json").write_text("[]", encoding="utf-8")
    catalog, problems = load_data_dir(data_dir)
    assert [str(p) for p in problems] == ["data/schema/common.schema.json: must hold one JSON object (a JSON Schema)"]
    assert catalog.engines == {}




# -- resource use: time in proportion to the file's size --------------------------------------------

def _best_time(fn, runs=3):
    import time
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    return best


def _validate_text(tmp_path, text):
    from datatools.files import read_file
    path = tmp_path / "engine.yaml"
    path.write_text(text, encoding="utf-8")
    document, problems = read_file(path, "data/engines/engine.yaml")
    assert document is not None, problems
    return errors(document)


@pytest.mark.parametrize("where", ["top", "nested"])
def test_unknown_keys_cost_linear_time(tmp_path, where):
    """Issue 27: 4,000 unknown keys took 23 s (each compared with every earlier sibling)."""
    text = (DATA / "engines/vllm.yaml").read_text(encoding="utf-8")

    def key(i):  # k0 ... kfff: short keys keep 20,000 of them under the size limit
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"
        return "k" + (digits[i // 1296] + digits[i // 36 % 36] + digits[i % 36]).lstrip("0")

    def with_keys(n):
        if where == "top":
            return text + "".join(f"{key(i)}: 1\n" for i in range(n))
        return text.replace("\nstatus:\n", "\nstatus:\n" + "".join(f"  {key(i)}: 1\n" for i in range(n)), 1)

    small, large = with_keys(2000), with_keys(20000)
    found = _validate_text(tmp_path, large)
    assert len(found) < 40 and found[-1][1].startswith("\u2026 and 19970 more unknown fields")
    ratio = _best_time(lambda: _validate_text(tmp_path, large)) / _best_time(lambda: _validate_text(tmp_path, small))
    assert ratio < 20, ratio


def test_unique_items_of_mappings_cost_linear_time():
    """jsonschema compares unsortable items pairwise: 2,000 mappings in an id list took 10 s."""
    def run(n):
        engine = doc("engines/vllm.yaml")
        engine["quantization"][0]["hardware"] = [{"a": i} for i in range(n)] + [{"a": 0}]
        assert len(errors(engine)) == n + 1  # each item: must be a text
    ratio = _best_time(lambda: run(4000), runs=2) / _best_time(lambda: run(400), runs=2)
    assert ratio < 20, ratio


def test_names_collide_as_a_reader_sees_them():
    """Issue 27: `v\u200bLLM` passed the uniqueness check beside `vLLM` (the schema refuses it too)."""
    from datatools.checks import check_unique_names
    for other in ("v\u200bLLM", "\u202evLLM", "\uff56\uff2c\uff2c\uff2d", "VLLM", "vllm"):
        data = {"engines": {"a": {"name": "vLLM"}, "b": {"name": other}}}
        rows = list(check_unique_names(data, None))
        assert [row[:3] for row in rows] == [("engines", "b", "name")], other


# -- placeholders: warnings on a contributor's machine, errors where the site is built or CI runs --------

@pytest.fixture(scope="module")
def unfilled_skeleton(tmp_path_factory):
    import shutil
    data = tmp_path_factory.mktemp("skeleton") / "data"
    shutil.copytree(DATA, data)
    proc = subprocess.run([sys.executable, "-m", "selector", "new", "engine", "my-engine", "--data-dir", str(data)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return data


def _validate_cli(data, *args, ci=None):
    import os
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "selector", "validate", *args, str(data)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env=env)


def test_placeholders_fail_the_build(unfilled_skeleton):
    """Issue 27 break 10: an unfilled `selector new engine` skeleton passed the strict build."""
    from macros import site
    with pytest.raises(site.DataError) as raised:
        site.catalog(unfilled_skeleton)
    lines = str(raised.value).splitlines()[1:]
    assert lines and all(line.startswith("data/engines/my-engine.yaml: ") for line in lines), lines
    assert any("still holds the placeholder 'https://example.com/TODO'" in line for line in lines)
    assert any("still holds the placeholder 'TODO: " in line for line in lines)


@pytest.mark.parametrize("args,ci", [(["--strict"], None), ([], "true")])
def test_placeholders_fail_strict_validate(unfilled_skeleton, args, ci):
    proc = _validate_cli(unfilled_skeleton, *args, ci=ci)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines and all(line.startswith("data/engines/my-engine.yaml: ") for line in lines), lines
    assert any(line.endswith("still holds the placeholder 'https://example.com/TODO'; write the real value")
               for line in lines)


def test_placeholders_are_warnings_locally(unfilled_skeleton):
    proc = _validate_cli(unfilled_skeleton)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning: data/engines/my-engine.yaml: " in proc.stdout
@pytest.mark.parametrize("url, refused", [
    ("https://github.com/lmstudio-ai/docs/blob/kayden/docs-additions/0_app/mlx.md", True),
    ("https://github.com/o/r/tree/feature-x/docs", True),
    ("https://raw.githubusercontent.com/ai-dynamo/dynamo/docs-website/fern/assets/releases-atom.xml", True),
    ("https://raw.githubusercontent.com/o/r/refs/heads/next/README.md", True),
    ("https://github.com/o/r/blob/release/v0.5/README.md", True),
    ("https://github.com/o/r/blob/abc1234/README.md", True),  # a short hash could be a branch name
    ("https://github.com/o/r/blob/main/README.md", False),
    ("https://github.com/o/r/blob/master/README.md", False),
    ("https://github.com/o/r/blob/dbbfcc516097d1b8390aeed4bf45aa5a1541a899/mlx.md", False),
    ("https://github.com/o/r/blob/v0.31.3/README.md", False),
    ("https://github.com/o/r/blob/1.4.1/README.md", False),
    ("https://github.com/o/r/blob/b10240/README.md", False),
    ("https://github.com/o/r/blob/v0.2.0-20260604-074434/README.md", False),
    ("https://raw.githubusercontent.com/o/r/refs/tags/v1.2.0/README.md", False),
    ("https://github.com/o/r/releases/tag/v1.3.0", False),
    ("https://github.com/o/r/commit/dbbfcc5", False),
    ("https://github.com/o/r/pull/12", False),
    ("https://docs.vllm.ai/en/latest/", False),
])
def test_pinned_sources_rule(url, refused):
    """The pinned-sources check: a branch other than main or master must be a commit or a tag; no network."""
    from datatools.checks import check_pinned_sources, _iter_walk
    doc = {"sources": {"s": {"url": url, "title": "t", "kind": "repository", "as_of": "2026-12-01"}}}
    found = list(check_pinned_sources(doc, list(_iter_walk(doc)), None))
    assert bool(found) == refused, found
    if refused:
        (path, message), = found
        assert path == "sources.s.url" and repr(url) in message and "allowed:" in message and "\n" not in message


def test_pinned_sources_default_branch_is_per_source():
    from datatools.checks import check_pinned_sources, _iter_walk
    url = "https://github.com/LMCache/LMCache/blob/dev/README.md"
    doc = {"sources": {"a": {"url": url, "default_branch": "dev"}, "b": {"url": url}}}
    found = list(check_pinned_sources(doc, list(_iter_walk(doc)), None))
    assert [path for path, _ in found] == ["sources.b.url"]
