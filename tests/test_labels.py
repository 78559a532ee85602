"""Facts the pages show come from the data and the schemas, written once: feature names from the
engine schema's titles, value labels from ``enumNames`` beside each ``enum``, the engine order from
``data/tiers/*.yaml`` ``order:``, a tier page's description from its tier and the engines in it."""

import copy
import json

import pytest

from conftest import ROOT
from mini import mini_catalog
from macros.views import common, tiers
from selector.catalog import Catalog
from datatools.checks import FEATURE_METHODS

SCHEMAS = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "data" / "schema").glob("*.json"))}


def nodes_with(key, node=None, path=""):
    """(schema name, JSON Pointer, node) of every schema node holding ``key``."""
    if node is None:
        for name, schema in SCHEMAS.items():
            yield from ((name, p, n) for _, p, n in nodes_with(key, schema, ""))
        return
    if isinstance(node, dict):
        if key in node:
            yield None, path or "/", node
        for k, v in node.items():
            if k not in ("enum", "enumNames", "required"):
                yield from nodes_with(key, v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from nodes_with(key, v, f"{path}/{i}")


LABELLED = list(nodes_with("enumNames"))


def test_the_labelled_enums_are_the_ones_the_pages_show():
    assert {(name, p) for name, p, _ in LABELLED} == {
        ("engine.schema.json", "/properties/kind"),
        ("engine.schema.json", "/properties/relations/items/properties/type"),
        ("engine.schema.json", "/$defs/speculativeDecodingMethod"),
        ("engine.schema.json", "/$defs/cpuOffloadMethod"),
        ("result-set.schema.json", "/properties/kind"),
        ("result-set.schema.json", "/properties/method/properties/power_boundary"),
        ("quantization.schema.json", "/properties/applies_to"),
        ("price-list.schema.json", "/properties/kind"),
    }


@pytest.mark.parametrize("name,pointer,node", LABELLED, ids=[f"{n}{p}" for n, p, _ in LABELLED])
def test_every_enum_value_has_one_label(name, pointer, node):
    labels = common.enum_labels(name, pointer)
    assert list(labels) == node["enum"] and all(isinstance(x, str) and x.strip() for x in labels.values())


def test_a_missing_or_extra_label_stops_the_build(monkeypatch):
    broken = copy.deepcopy(SCHEMAS["engine.schema.json"])
    broken["properties"]["kind"]["enumNames"].pop()
    monkeypatch.setattr(common, "schema", lambda name: broken)
    message = r"engine.schema.json: /properties/kind: enumNames must give one label per enum value \(3 values, 2 labels\)"
    with pytest.raises(ValueError, match=message):
        common.enum_labels("engine.schema.json", "/properties/kind")


def test_features_are_the_engine_schema_properties_with_their_titles():
    features = SCHEMAS["engine.schema.json"]["properties"]["features"]
    assert [k for k, _ in common.FEATURES] == list(features["properties"]) == features["required"]
    assert [t for _, t in common.FEATURES] == [p["title"] for p in features["properties"].values()]


def test_a_feature_without_a_title_stops_the_build(monkeypatch):
    broken = copy.deepcopy(SCHEMAS["engine.schema.json"])
    del broken["properties"]["features"]["properties"]["paged_kv"]["title"]
    monkeypatch.setattr(common, "schema", lambda name: broken)
    with pytest.raises(ValueError, match="features/properties/paged_kv: needs a title"):
        common.field_titles("engine.schema.json", "/properties/features/properties")


def test_questions_name_the_engine_schema_features():
    # JSON Schema cannot make an enum from another schema's property names: this keeps the two equal
    questions = SCHEMAS["questions.schema.json"]
    [feature] = [n for _, _, n in nodes_with("feature", questions, "") if "enum" in n.get("feature", {})]
    assert feature["feature"]["enum"] == [k for k, _ in common.FEATURES]


@pytest.mark.parametrize("feature,pointer", [("speculative_decoding", "/$defs/speculativeDecodingMethod"),
                                             ("cpu_offload", "/$defs/cpuOffloadMethod")])
def test_labelled_methods_are_the_methods_the_check_allows(feature, pointer):
    assert set(common.enum_labels("engine.schema.json", pointer)) == FEATURE_METHODS[feature]
    assert set(FEATURE_METHODS) == {"speculative_decoding", "cpu_offload"}


def with_tiers(orders):
    cat = mini_catalog(results=False)
    raw = copy.deepcopy(cat.raw)
    for tier_id, order in orders.items():
        raw["tiers"][tier_id] = dict(raw["tiers"]["L2"], id=tier_id, name=f"Tier {tier_id} name", order=order)
    raw["engines"]["beta"]["tier"] = "L3"
    return Catalog(raw)


@pytest.mark.parametrize("orders,expected", [({"L2": 1, "L3": 2}, ["alpha", "beta"]),
                                             ({"L2": 2, "L3": 1}, ["beta", "alpha"])])
def test_engines_follow_the_tier_order_of_the_data(orders, expected):
    assert [e["id"] for e in common.engines_ordered(with_tiers(orders))] == expected


@pytest.mark.parametrize("tier_id,url", [("L1", "tiers/l1/"), ("L1.5", "tiers/l1-5/"), ("L3", "tiers/l3/")])
def test_tier_pages_are_named_after_the_tier(tier_id, url):
    assert common.tier_url(tier_id) == url and (ROOT / "docs" / (url.rstrip("/") + ".md")).is_file()


def test_tier_description_names_the_engines_of_the_tier():
    cat = with_tiers({"L2": 1, "L3": 2})
    assert tiers.tier_description(cat, "L2") == "Tier L2 (Tier L2 name): Alpha, every fact cited."
    raw = copy.deepcopy(cat.raw)
    raw["engines"]["beta"]["tier"] = "L2"
    assert tiers.tier_description(Catalog(raw), "L2") == "Tier L2 (Tier L2 name): Alpha and Beta compared, every fact cited."
    del raw["engines"]["alpha"], raw["engines"]["beta"]
    assert tiers.tier_description(Catalog(raw), "L2") == "Tier L2 (Tier L2 name)."


@pytest.mark.parametrize("page", sorted((ROOT / "docs" / "tiers").glob("*.md")), ids=lambda p: p.name)
def test_tier_pages_name_their_tier_and_no_engine(page, catalog):
    front = page.read_text(encoding="utf-8").split("---\n")[1]
    assert "description:" not in front
    tier_id = next(line.split(":", 1)[1].split("#")[0].strip() for line in front.splitlines() if line.startswith("tier:"))
    assert common.tier_url(tier_id) == f"tiers/{page.stem}/"
    assert not [e["name"] for e in catalog.engines.values() if e["name"] in page.read_text(encoding="utf-8")]
