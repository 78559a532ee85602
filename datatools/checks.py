"""Named semantic checks that run after the JSON Schemas pass.

Each check is a small function: ``check_<name>(data, ctx)`` (``@check``) for one that
relates files to each other, yielding ``(collection, entry_id, path, message[, severity])``,
or ``check_<name>(doc, entries, ctx)`` (``@doc_check``) for one that reads a single
document, yielding ``(path, message[, severity])``; :func:`run_checks` turns them into
:class:`~selector.catalog.Problem` rows naming the file.  Every check
has its own malformed fixture under ``tests/bad_data``.
"""

import re
from datetime import date
from urllib.parse import urlsplit

from selector.catalog import COLLECTIONS, SINGLETONS, Catalog
from selector.inputs import InputError, clean_answers
from selector.launch import SPEC_METHODS, flags_at, version_key
from selector.suggest import did_you_mean

from .coverage import GRIDS, coverage
from .problem import Problem



STALE_DAYS = 180
# features whose fact may list methods: speculative decoding methods; CPU offload kinds (experts: routed
# experts held and computed on the CPU; layers: whole layers held and computed on the CPU;
# weights-streaming: weights held in host RAM and copied to the GPU for each use)
FEATURE_METHODS = {
    "speculative_decoding": {"ngram", "draft-model", "eagle", "eagle3", "medusa", "mtp", "lookahead", "suffix"},
    "cpu_offload": {"experts", "layers", "weights-streaming"},
}
CHECKS = []  # checks across files: fn(data, ctx) yields (collection, id, path, message[, severity])
DOC_CHECKS = []  # checks that read one document at a time; see doc_check and document_checks


def check(fn):
    CHECKS.append((fn.__name__.removeprefix("check_").replace("_", "-"), fn))
    return fn


def doc_check(fn):
    """A check that reads one document alone: ``fn(doc, entries, ctx)`` yields ``(path, message[, severity])``.

    ``entries`` is the document's ``(path, key, value)`` walk, made once for all such checks.
    They run where the document is read (in the worker processes that parse and schema-check a large
    catalog), so only the checks that relate documents to each other run after every file is in."""
    DOC_CHECKS.append((fn.__name__.removeprefix("check_").replace("_", "-"), fn))
    return fn


class Ctx:
    def __init__(self, data, today, removed=frozenset()):
        self.data = data
        self.today = today
        self.removed = removed  # (collection, id) of data files that git history says were deleted
        self._ids = {}

    def ids(self, collection):
        found = self._ids.get(collection)
        if found is None:
            found = self._ids[collection] = frozenset(self.data.get(collection) or {})
        return found


def document_checks(collection, entry_id, doc, today):
    """``[(check name, (collection, id, path, message[, severity]))]``: every :func:`doc_check` on one
    document that passed its schema."""
    ctx = Ctx({}, today)
    entries = list(_iter_walk(doc))
    return [(name, (collection, entry_id, *row)) for name, fn in DOC_CHECKS for row in fn(doc, entries, ctx)]


def _iter_walk(node, path=""):
    """(path, key, value) for every mapping entry below ``node``, depth first, in document order;
    iteratively (a stack of iterators, not nested generators)."""
    stack = []
    if isinstance(node, dict):
        stack.append((iter(node.items()), path, True))
    elif isinstance(node, list):
        stack.append((iter(enumerate(node)), path, False))
    while stack:
        items, base, is_map = stack[-1]
        for key, value in items:
            if is_map:
                yield base, key, value
                sub = f"{base}.{key}" if base else str(key)
            else:
                sub = f"{base}[{key}]"
            if isinstance(value, dict):
                stack.append((iter(value.items()), sub, True))
                break
            if isinstance(value, list):
                stack.append((iter(enumerate(value)), sub, False))
                break
        else:
            stack.pop()


def _entries(data):
    for name in COLLECTIONS:
        for entry_id, doc in data.get(name, {}).items():
            yield name, entry_id, doc
    for name in SINGLETONS:
        if data.get(name):
            yield name, None, data[name]


def _ref(ctx, collection, value, label):
    known = ctx.ids(collection)
    if value in known:
        return None
    return f"{value!r} is not a known {label} id{did_you_mean(value, known)}; add data/{collection}/{value}.yaml or fix the id"


@check
def check_id_matches_file(data, ctx):
    for name in COLLECTIONS:
        for key, doc in data.get(name, {}).items():
            if doc.get("id") != key:
                yield name, key, "id", f"is {doc.get('id')!r} but the file is named {key}.yaml; make them the same"


@doc_check
def check_unique_ids(doc, entries, ctx):
    for path, key, value in entries:
        if isinstance(value, list) and value and all(isinstance(v, dict) and "id" in v for v in value):
            seen = set()
            for i, item in enumerate(value):
                where = f"{path}.{key}" if path else key
                # quantization may repeat an id for another group of hardware
                keys = [(item["id"], hw) for hw in item["hardware"]] if "hardware" in item and isinstance(item["hardware"], list) else [(item["id"], None)]
                if any(k in seen for k in keys):
                    what = "for the same hardware " if keys[0][1] is not None else ""
                    yield f"{where}[{i}].id", f"{item['id']!r} appears twice in this list {what}; merge the two entries"
                seen.update(keys)


# fields whose value is the key of a citation in the same file (`release_source`: an engine's latest release)
SOURCE_KEYS = ("source", "release_source")


@doc_check
def check_sources_resolve(doc, entries, ctx):
    keys = set((doc.get("sources") or {}))
    for path, key, value in entries:
        if key in SOURCE_KEYS and isinstance(value, str) and value not in keys and not path.startswith("sources"):
            where = f"{path}.{key}" if path else key
            yield where, (f"{value!r} is not a key of this file's `sources`{did_you_mean(value, keys)}; "
                          "add it under `sources:` with url, title, kind and as_of")


@doc_check
def check_facts_have_sources(doc, entries, ctx):
    for path, key, value in entries:
        if isinstance(value, dict) and value.get("value") in ("yes", "partial", "no") and "source" not in value:
            yield f"{path}.{key}" if path else key, "states a fact without a source; add `source: KEY` or set `value: unknown`"


@doc_check
def check_unused_sources(doc, entries, ctx):
    used = {v for _, k, v in entries if k in SOURCE_KEYS and isinstance(v, str)}
    for key in doc.get("sources") or {}:
        if key not in used:
            yield f"sources.{key}", "is never cited by a fact in this file; cite it or remove it", "info"


@doc_check
def check_dates(doc, entries, ctx):
    for path, key, value in entries:
        if key in ("as_of", "published", "since", "date", "verified", "released") and isinstance(value, str) \
                and value != "unknown":
            try:
                day = date.fromisoformat(value)
            except ValueError:
                continue  # the schema already reported it
            where = f"{path}.{key}" if path else key
            if day > ctx.today:
                yield where, f"{value} is in the future (today is {ctx.today}); use the date the fact was checked"
            elif key == "as_of" and (ctx.today - day).days > STALE_DAYS:
                yield where, f"was checked {(ctx.today - day).days} days ago; re-verify the source and update as_of", "warning"


@doc_check
def check_urls(doc, entries, ctx):
    for path, key, value in entries:
        if key in ("url", "homepage", "repository") and isinstance(value, str):
            where = f"{path}.{key}" if path else key
            try:
                parts = urlsplit(value)
            except ValueError:  # e.g. an unclosed IPv6 bracket: https://[host
                parts = None
            if parts is None or parts.scheme != "https" or not parts.netloc or "." not in parts.netloc or " " in value:
                yield where, f"{value!r} is not a well-formed https URL"


# A ref in a GitHub URL that cannot move under the citation: a full commit, or a release tag (v1.2.3,
# 0.31.3, v0.2.0-20260604, llama.cpp's b10240). Branches other than the default one are refused.
_COMMIT_RE = re.compile(r"[0-9a-f]{40}")
_TAG_RE = re.compile(r"v?\d+(?:\.\d+)+(?:[-+.][0-9A-Za-z.+-]*)?|b\d+")
_DEFAULT_BRANCHES = ("main", "master")


def github_ref(url):
    """``(owner/repo, ref)`` when ``url`` reads a file or folder of a GitHub repository at a ref
    (github.com/o/r/blob|tree|raw|blame/REF/..., raw.githubusercontent.com/o/r/REF/...), else None.
    A ref with slashes cannot be told from the path, so its first segment stands for it."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    segs = [s for s in parts.path.split("/") if s]
    if host in ("github.com", "www.github.com") and len(segs) >= 4 and segs[2] in ("blob", "tree", "raw", "blame"):
        owner, repo, rest = segs[0], segs[1], segs[3:]
    elif host == "raw.githubusercontent.com" and len(segs) >= 3:
        owner, repo, rest = segs[0], segs[1], segs[2:]
    else:
        return None
    if rest[0] == "refs" and len(rest) >= 3:  # refs/heads/BRANCH or refs/tags/TAG
        return f"{owner}/{repo}", (rest[2] if rest[1] == "tags" and _TAG_RE.fullmatch(rest[2]) else rest[1] + "/" + rest[2])
    return f"{owner}/{repo}", rest[0]


@doc_check
def check_pinned_sources(doc, entries, ctx):
    """A citation that reads a GitHub repository at a branch other than its default one breaks when the
    branch moves or is deleted: link a commit or a tag. A repository whose default branch is not main or
    master states it on the source (``default_branch``)."""
    sources = doc.get("sources") if isinstance(doc.get("sources"), dict) else {}
    for path, key, value in entries:
        if key != "url" or not isinstance(value, str):
            continue
        found = github_ref(value)
        if found is None:
            continue
        repo, ref = found
        own = (sources.get(path.removeprefix("sources.")) or {}) if path.startswith("sources.") else {}
        if ref in _DEFAULT_BRANCHES or _COMMIT_RE.fullmatch(ref) or _TAG_RE.fullmatch(ref) or ref == own.get("default_branch"):
            continue
        yield f"{path}.{key}" if path else key, (
            f"{value!r} reads {repo} at the branch {ref!r}, which can move or vanish; allowed: a 40-digit commit, "
            "a release tag (v1.2.3, b1234), main or master, or the branch named by this source's default_branch")


@check
def check_engine_references(data, ctx):
    lists = (("hardware", "hardware", "hardware"), ("formats", "formats", "format"),
             ("quantization", "quantization", "quantization"))
    for engine_id, engine in data.get("engines", {}).items():
        for field, collection, label in lists:
            for i, item in enumerate(engine.get(field, [])):
                msg = _ref(ctx, collection, item["id"], label)
                if msg:
                    yield "engines", engine_id, f"{field}[{i}].id", msg
        for i, item in enumerate(engine.get("quantization", [])):
            for j, hw in enumerate(item.get("hardware", [])):
                msg = _ref(ctx, "hardware", hw, "hardware")
                if msg:
                    yield "engines", engine_id, f"quantization[{i}].hardware[{j}]", msg
            if "loads_as" in item:
                msg = _ref(ctx, "quantization", item["loads_as"], "quantization")
                if msg:
                    yield "engines", engine_id, f"quantization[{i}].loads_as", msg
        for i, rel in enumerate(engine.get("relations", [])):
            msg = _ref(ctx, "engines", rel["engine"], "engine")
            if msg:
                yield "engines", engine_id, f"relations[{i}].engine", msg
        for i, succ in enumerate(engine["status"].get("successors", [])):
            msg = _ref(ctx, "engines", succ, "engine")
            if msg:
                yield "engines", engine_id, f"status.successors[{i}]", msg
        profile = (engine.get("memory") or {}).get("profile") or {}
        for key, fields in (("repack", ("quantization",)), ("kv_default", ("quantization", "kv"))):
            for i, item in enumerate(profile.get(key, [])):
                for field in fields:
                    msg = _ref(ctx, "quantization", item[field], "quantization")
                    if msg:
                        yield "engines", engine_id, f"memory.profile.{key}[{i}].{field}", msg
        for i, rule in enumerate(profile.get("kv_default", [])):
            for field, collection, label in (("models", "models", "model"), ("hardware", "hardware", "hardware")):
                for j, value in enumerate(rule.get(field, [])):
                    msg = _ref(ctx, collection, value, label)
                    if msg:
                        yield "engines", engine_id, f"memory.profile.kv_default[{i}].{field}[{j}]", msg
        for key in ("batched_tokens", "max_seqs"):
            for i, tier in enumerate((profile.get(key) or {}).get("tiers", [])):
                for j, gpu in enumerate(tier.get("gpus", [])):
                    msg = _ref(ctx, "gpus", gpu, "GPU")
                    if msg:
                        yield "engines", engine_id, f"memory.profile.{key}.tiers[{i}].gpus[{j}]", msg
        for feature, fact in engine["features"].items():
            allowed = FEATURE_METHODS.get(feature, set())
            for i, method in enumerate(fact.get("methods", [])):
                if method not in allowed:
                    hint = f"use one of {sorted(allowed)}" if allowed else "this feature takes no methods; remove the list"
                    yield "engines", engine_id, f"features.{feature}.methods[{i}]", \
                        f"{method!r} is not a known method{did_you_mean(method, allowed)}; {hint}"


@check
def check_status_successors(data, ctx):
    for engine_id, engine in data.get("engines", {}).items():
        status = engine["status"]
        if status["value"] != "active" and not status.get("successors"):
            yield "engines", engine_id, "status.successors", f"an engine in {status['value']} status must name where to go instead (successors: [...])"


@check
def check_other_references(data, ctx):
    for gpu_id, gpu in data.get("gpus", {}).items():
        msg = _ref(ctx, "hardware", gpu["hardware"], "hardware")
        if msg:
            yield "gpus", gpu_id, "hardware", msg
    for q_id, quant in data.get("quantization", {}).items():
        for i, hw in enumerate(quant["native_hardware"]):
            msg = _ref(ctx, "hardware", hw, "hardware")
            if msg:
                yield "quantization", q_id, f"native_hardware[{i}]", msg
    for m_id, model in data.get("models", {}).items():
        msg = _ref(ctx, "quantization", model["native_precision"], "quantization")
        if msg:
            yield "models", m_id, "native_precision", msg
    for t_id, trend in data.get("trends", {}).items():
        for i, e in enumerate(trend["engines"]):
            msg = _ref(ctx, "engines", e, "engine")
            if msg:
                yield "trends", t_id, f"engines[{i}]", msg
    questions = data.get("questions") or {}
    for key, prio in (questions.get("priorities") or {}).items():
        msg = _ref(ctx, "matrix", prio["dimension"], "matrix dimension")
        if msg:
            yield "questions", None, f"priorities.{key}.dimension", msg


@check
def check_models(data, ctx):
    quant = ctx.ids("quantization")
    for m_id, m in data.get("models", {}).items():
        if m["active_params_b"] > m["total_params_b"]:
            yield "models", m_id, "active_params_b", "is larger than total_params_b; active parameters are a subset of the total"
        params = m.get("params") or {}
        total = sum(params.values())
        if params and abs(total - m["total_params_b"]) > 0.05 * m["total_params_b"]:
            yield "models", m_id, "params", (f"add up to {total:.2f}B, more than 5% away from total_params_b "
                                             f"({m['total_params_b']:g}B); check the groups against config.json")
        experts = params.get("routed_experts", 0)
        if m["architecture"] == "dense" and (experts or m.get("experts")):
            yield "models", m_id, "params.routed_experts", "must be 0 (and `experts` absent) for a dense model"
        if m["architecture"] == "moe":
            if not experts:
                yield "models", m_id, "params.routed_experts", "must be above 0 for a MoE model"
            if not m.get("experts"):
                yield "models", m_id, "experts", "is required for a MoE model ({routed, active, shared} per MoE layer)"
            elif m["experts"]["active"] > m["experts"]["routed"]:
                yield "models", m_id, "experts.active", "is larger than experts.routed"
        att = m["attention"]
        need = ("kv_lora_rank", "qk_rope_head_dim") if att["type"] == "mla" else ("kv_heads", "head_dim")
        for field in need:
            if field not in att:
                yield "models", m_id, f"attention.{field}", f"is required for {att['type'].upper()} attention (the fit estimator sizes the KV cache from it)"
        kinds = att.get("layers")
        if kinds:
            if sum(kinds.values()) != m["layers"]:
                yield "models", m_id, "attention.layers", (f"add up to {sum(kinds.values())} layers but the model has {m['layers']}; "
                                                          "full + sliding + chunked + linear must equal layers")
            if (kinds.get("sliding") or kinds.get("chunked")) and not att.get("window"):
                yield "models", m_id, "attention.window", "is required when some layers are sliding or chunked (tokens they attend to)"
            if kinds.get("linear") and not att.get("linear_state_kib"):
                yield "models", m_id, "attention.linear_state_kib", "is required when some layers are linear attention (state per sequence)"
        for group, q in (m.get("stored") or {}).items():
            msg = _ref(ctx, "quantization", q, "quantization")
            if msg:
                yield "models", m_id, f"stored.{group}", msg
        for i, ck in enumerate(m.get("checkpoints", [])):
            if ck["quantization"] not in quant:
                yield "models", m_id, f"checkpoints[{i}].quantization", _ref(ctx, "quantization", ck["quantization"], "quantization")
        for i, draft in enumerate(m.get("drafts", [])):
            for j, engine in enumerate(draft["engines"]):
                msg = _ref(ctx, "engines", engine, "engine")
                if msg:
                    yield "models", m_id, f"drafts[{i}].engines[{j}]", msg


@check
def check_matrix(data, ctx):
    dims = data.get("matrix", {})
    engine_sets = {d_id: set(d["scores"]) for d_id, d in dims.items()}
    union = set().union(*engine_sets.values()) if engine_sets else set()
    for d_id, dim in dims.items():
        for engine_id in dim["scores"]:
            msg = _ref(ctx, "engines", engine_id, "engine")
            if msg:
                yield "matrix", d_id, f"scores.{engine_id}", msg
        for missing in sorted(union - engine_sets[d_id]):
            yield "matrix", d_id, f"scores.{missing}", "is missing: every dimension must score every engine the matrix names"


@check
def check_tree(data, ctx):
    tree = data.get("tree")
    if not tree:
        return
    scales = [b["scale"] for b in tree["branches"]]
    for i, branch in enumerate(tree["branches"]):
        if scales.count(branch["scale"]) > 1:
            yield "tree", None, f"branches[{i}].scale", f"{branch['scale']!r} has more than one branch"
        defaults = [leaf for leaf in branch["leaves"] if leaf.get("default")]
        if len(defaults) != 1:
            yield "tree", None, f"branches[{i}].leaves", f"needs exactly one leaf with `default: true`, has {len(defaults)}"
        needs = [leaf["need"] for leaf in branch["leaves"]]
        for j, leaf in enumerate(branch["leaves"]):
            if needs.count(leaf["need"]) > 1:
                yield "tree", None, f"branches[{i}].leaves[{j}].need", f"{leaf['need']!r} is used twice in this branch"
            for field in ("engines", "also", "with"):
                for k, engine_id in enumerate(leaf.get(field, [])):
                    msg = _ref(ctx, "engines", engine_id, "engine")
                    if msg:
                        yield "tree", None, f"branches[{i}].leaves[{j}].{field}[{k}]", msg
    for i, warn in enumerate(tree["warnings"]):
        msg = _ref(ctx, "engines", warn["engine"], "engine")
        if msg:
            yield "tree", None, f"warnings[{i}].engine", msg


def engine_aliases(engine):
    """The ways page text names an engine: its name, the name without a bracketed part, the bracketed part,
    the name without a leading maker, and its id."""
    name = engine["name"]
    out = {name, engine["id"]}
    if "(" in name and name.endswith(")"):
        bare, _, inner = name[:-1].partition("(")
        out |= {bare.strip(), inner.strip()}
    for maker in ("NVIDIA ", "Hugging Face ", "AMD ", "Intel "):
        if name.startswith(maker):
            out.add(name[len(maker):].split(" (")[0])
    return {a for a in out if len(a) >= 3}


def names_in(text, catalog_engines):
    """Engine ids whose names appear in ``text`` as whole words."""
    import re
    found = set()
    folded = text.casefold()
    for engine_id, engine in catalog_engines.items():
        for alias in engine_aliases(engine):
            # the substring test first: compiling a pattern per alias is what made this slow with many engines
            if alias.casefold() in folded and re.search(r"(?<![\w.-])" + re.escape(alias) + r"(?![\w-])", text, re.I):
                found.add(engine_id)
                break
    return found


@check
def check_aliases(data, ctx):
    """An old id names a gone entry and an existing successor; every published id whose file is gone has one."""
    rows = (data.get("aliases") or {}).get("aliases", [])
    seen = {}
    for i, row in enumerate(rows):
        collection, old, new = row["collection"], row["id"], row["successor"]
        if old in ctx.ids(collection):
            yield "aliases", None, f"aliases[{i}].id", (f"{old!r} is a current {collection} id (data/{collection}/{old}.yaml); "
                                                        "an alias is for an id whose file is gone")
        if new not in ctx.ids(collection):
            yield "aliases", None, f"aliases[{i}].successor", (f"{new!r} is not a {collection} id{did_you_mean(new, ctx.ids(collection))}; "
                                                               f"name a file of data/{collection}/")
        if (collection, old) in seen:
            yield "aliases", None, f"aliases[{i}].id", f"{old!r} is already aliased as aliases[{seen[collection, old]}]; keep one row"
        seen.setdefault((collection, old), i)
    for collection, old in sorted(ctx.removed):
        if old not in ctx.ids(collection) and (collection, old) not in seen:
            yield "aliases", None, "aliases", (f"data/{collection}/{old}.yaml was published and is gone: add a row "
                                               f"{{id: {old}, collection: {collection}, successor: ..., since: ..., note: ...}} "
                                               "so saved links and scripts that send the old id keep an answer")


@check
def check_glossary(data, ctx):
    """Each term once: it becomes an abbreviation on every page and an anchor on the glossary page,
    and neither may be ambiguous (anchors ignore case, so MoE and MOE would collide)."""
    glossary = data.get("glossary")
    if not glossary:
        return
    seen = {}
    for i, item in enumerate(glossary["terms"]):
        key = item["term"].lower()
        if key in seen:
            first = glossary["terms"][seen[key]]["term"]
            yield "glossary", None, f"terms[{i}].term", (f"{item['term']!r} is already defined as terms[{seen[key]}] ({first!r}; "
                                                      "terms are compared ignoring case); merge the two entries")
        else:
            seen[key] = i


@check
def check_others(data, ctx):
    """Rows of data/others.yaml link to engine pages (``related``), and a system that has a full entry
    in data/engines/ leaves the table rather than appearing twice."""
    others = data.get("others")
    if not others:
        return
    engines = ctx.ids("engines")
    for i, row in enumerate(others["systems"]):
        if row["id"] in engines:
            yield "others", None, f"systems[{i}].id", (f"{row['id']!r} has a full entry (data/engines/{row['id']}.yaml); "
                                                     "remove its row here")
        for j, ref in enumerate(row.get("related", [])):
            problem = _ref(ctx, "engines", ref, "engine")
            if problem:
                yield "others", None, f"systems[{i}].related[{j}]", problem


@check
def check_scenarios_answers(data, ctx):
    """A scenario's answers must be answers the selector accepts (the questions, their ranges and scales).
    Whether its text names the selector's first candidate is a test of the rules (tests/test_rules.py): validation
    does not run the selector."""
    if not data.get("tree") or not data.get("questions"):
        return  # the scales and their questions come from both; the file that failed is reported already
    catalog = Catalog(data)
    for s_id, scen in data.get("scenarios", {}).items():
        try:
            clean_answers(catalog, scen["answers"])
        except InputError as exc:
            yield "scenarios", s_id, f"answers.{exc.key}", str(exc)


# -- measured results ---------------------------------------------------------------------------------
RESULT_LIMITS = {  # metric -> (upper bound, what it is); generous, to catch unit slips (tokens/ms, per system vs per GPU)
    "throughput_per_gpu": (200000, "tokens/s per accelerator"),
    "throughput_total": (1e8, "tokens/s for the system"),
    "output_tps_per_user": (5000, "tokens/s per request"),
    "prompt_tps": (500000, "prompt tokens/s"),
    "decode_tps": (5000, "tokens/s for one sequence"),
    "requests_per_s": (1e6, "requests/s"),
    "energy_j_per_token": (100, "joules per token"),
    "power_w": (2e6, "watts"),
}
LATENCY_LIMIT_MS = 600000


def _row_key(row, method):
    return (row.get("system"), row["engine"], row.get("engine_version"), row.get("backend"), row["gpu"], row["gpus"], row["model"], row["weights"], row.get("kv"),
            row.get("parallelism"), row.get("variant"), row.get("concurrency", method.get("concurrency")),
            row.get("input_tokens", method.get("input_tokens")), row.get("output_tokens", method.get("output_tokens")))


@check
def check_results_references(data, ctx):
    quant = data.get("quantization", {})
    for set_id, rs in data.get("results", {}).items():
        for i, row in enumerate(rs["rows"]):
            for field, collection, label in (("engine", "engines", "engine"), ("gpu", "gpus", "GPU"), ("model", "models", "model")):
                msg = _ref(ctx, collection, row[field], label)
                if msg:
                    yield "results", set_id, f"rows[{i}].{field}", msg
            for field, applies in (("weights", "weights"), ("kv", "kv-cache")):
                if field not in row:
                    continue
                msg = _ref(ctx, "quantization", row[field], "quantization")
                if msg:
                    yield "results", set_id, f"rows[{i}].{field}", msg
                elif quant[row[field]]["applies_to"] != applies:
                    yield "results", set_id, f"rows[{i}].{field}", (f"{row[field]!r} is a {quant[row[field]]['applies_to']} scheme; "
                                                                    f"`{field}` takes a {applies} scheme")


@check
def check_results_plausible(data, ctx):
    for set_id, rs in data.get("results", {}).items():
        for i, row in enumerate(rs["rows"]):
            m = row["metrics"]
            for key, (limit, what) in RESULT_LIMITS.items():
                if key in m and m[key] > limit:
                    yield "results", set_id, f"rows[{i}].metrics.{key}", f"{m[key]:g} {what} is above {limit:g}; check the unit"
            for key in ("ttft_ms", "tpot_ms", "itl_ms"):
                for stat, value in (m.get(key) or {}).items():
                    if value > LATENCY_LIMIT_MS:
                        yield "results", set_id, f"rows[{i}].metrics.{key}.{stat}", f"{value:g} ms is over ten minutes; is it in seconds or microseconds?"
            if "throughput_per_gpu" in m and "throughput_total" in m:
                expect = m["throughput_per_gpu"] * row["gpus"]
                if abs(expect - m["throughput_total"]) > 0.02 * m["throughput_total"] + 1:
                    yield "results", set_id, f"rows[{i}].metrics.throughput_per_gpu", (
                        f"{m['throughput_per_gpu']:g} x {row['gpus']} GPUs = {expect:g}, but throughput_total is {m['throughput_total']:g}")
            tpot = (m.get("tpot_ms") or {}).get("median") or (m.get("tpot_ms") or {}).get("mean")
            if tpot and "output_tps_per_user" in m and abs(1000 / tpot - m["output_tps_per_user"]) > 0.35 * m["output_tps_per_user"]:
                yield "results", set_id, f"rows[{i}].metrics.output_tps_per_user", (
                    f"{m['output_tps_per_user']:g} tokens/s per user does not match a {tpot:g} ms time per output token "
                    f"({1000 / tpot:.1f} tokens/s)"), "warning"


@check
def check_results_duplicates(data, ctx):
    for set_id, rs in data.get("results", {}).items():
        seen = {}
        for i, row in enumerate(rs["rows"]):
            key = _row_key(row, rs["method"])
            if key in seen:
                yield "results", set_id, f"rows[{i}]", (f"measures the same setup as rows[{seen[key]}] (system, engine, version, backend, GPU, "
                                                         "count, model, precision, parallelism, concurrency, lengths); "
                                                         "merge them or say what differs in `parallelism` or the lengths")
            else:
                seen[key] = i


@check
def check_results_comparable(data, ctx):
    """Sets that share a comparable_set must share the method: the explorer plots them together."""
    groups = {}
    for set_id, rs in sorted(data.get("results", {}).items()):
        if rs.get("comparable_set"):
            groups.setdefault(rs["comparable_set"], []).append((set_id, rs))
    for name, members in groups.items():
        first_id, first = members[0]
        for set_id, rs in members[1:]:
            for field in ("input_tokens", "output_tokens", "concurrency"):
                if rs["method"].get(field) != first["method"].get(field):
                    yield "results", set_id, f"method.{field}", (
                        f"is {rs['method'].get(field)!r} but {first_id} in the same comparable_set {name!r} has "
                        f"{first['method'].get(field)!r}; give this set its own comparable_set or align the method")


@check
def check_results_costs_and_energy(data, ctx):
    """A cost needs to know which tokens a throughput counts; an energy figure needs its power boundary."""
    for set_id, rs in data.get("results", {}).items():
        method = rs["method"]
        rows = rs["rows"]
        if "tokens_counted" not in method and any("throughput_per_gpu" in r["metrics"] for r in rows):
            yield "results", set_id, "method.tokens_counted", ("is missing but rows have throughput_per_gpu; say which tokens it counts "
                                                               "(input+output, output or input) so the cost per million tokens can be derived")
        powered = [i for i, r in enumerate(rows) if {"energy_j_per_token", "power_w"} & set(r["metrics"])]
        if powered and "power_boundary" not in method:
            yield "results", set_id, "method.power_boundary", (f"is missing but rows[{powered[0]}] has a power or energy figure; "
                                                               "say what the power covers (system or accelerator)")
        for i in powered:
            m = rows[i]["metrics"]
            tps = m.get("throughput_total") or (m["throughput_per_gpu"] * rows[i]["gpus"] if "throughput_per_gpu" in m else None)
            if "energy_j_per_token" in m and "power_w" in m and tps:
                expect = m["power_w"] / tps
                if abs(expect - m["energy_j_per_token"]) > 0.02 * expect:
                    yield "results", set_id, f"rows[{i}].metrics.energy_j_per_token", (
                        f"{m['energy_j_per_token']:g} J per token, but {m['power_w']:g} W / {tps:g} tokens/s = {expect:.4g} J per token")


@check
def check_prices(data, ctx):
    """Prices name a known GPU, and an instance price says how many GPUs it buys."""
    for pid, pl in data.get("prices", {}).items():
        for i, p in enumerate(pl["prices"]):
            msg = _ref(ctx, "gpus", p["gpu"], "GPU")
            if msg:
                yield "prices", pid, f"prices[{i}].gpu", msg
            if p["per"] == "instance" and "gpus_per_instance" not in p:
                yield "prices", pid, f"prices[{i}].gpus_per_instance", ("is missing: an instance price is divided by the GPUs it "
                                                                        "holds to give the price per GPU-hour")
            if p["per"] == "gpu" and "gpus_per_instance" in p:
                yield "prices", pid, f"prices[{i}].gpus_per_instance", "only goes with per: instance (this price is already per GPU)"
            if ctx.today and str(p["as_of"]) > str(ctx.today):
                yield "prices", pid, f"prices[{i}].as_of", f"{p['as_of']} is in the future"


@check
def check_support_coverage(data, ctx):
    """Notes (listed by ``validate --warnings``): the cells of each engine's grids that no source documents yet."""
    per_engine, _ = coverage(data)
    for engine_id, grids in per_engine.items():
        for grid in GRIDS:
            row = grids[grid]
            if row["unknown"]:
                shown = ", ".join(row["missing"][:12]) + (f" and {row['unknown'] - 12} more" if row["unknown"] > 12 else "")
                yield "engines", engine_id, grid, (f"{row['unknown']} of {row['cells']} cells not documented yet: {shown}; "
                                                   "add a row with yes, partial or no and its source"), "info"


def run_checks(data, files, today=None, done=None, removed=frozenset()):
    """Every check on a catalog whose documents passed their schemas: ``[Problem]``.

    ``done`` maps ``(collection, id)`` to the rows :func:`document_checks` already found for that
    document where it was read; documents not in it are checked here. ``removed`` holds the published
    ids whose files are gone (:func:`datatools.history.removed_ids`)."""
    ctx = Ctx(data, today or date.today(), removed)
    rows = [(name, row) for name, fn in CHECKS for row in fn(data, ctx)]
    for collection, entry_id, doc in _entries(data):
        found = done.get((collection, entry_id)) if done else None
        rows.extend(found if found is not None else document_checks(collection, entry_id, doc, ctx.today))
    problems = []
    for name, row in rows:
        collection, entry_id, path, message = row[:4]
        severity = row[4] if len(row) > 4 else "error"
        file = files.get((collection, entry_id)) or (f"data/{collection}.yaml" if entry_id is None else f"data/{collection}/{entry_id}.yaml")
        problems.append(Problem(file, path, message, severity, name))
    return problems


# -- display names ----------------------------------------------------------------------------------
def name_key(text):
    """What a reader sees of a name: format characters (U+200B, bidi controls) dropped, NFKC, case folded,
    spaces collapsed, so ``v\u200bLLM`` and full-width ``ｖＬＬＭ`` are both ``vllm``."""
    import unicodedata
    visible = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", visible).casefold()).split())


@check
def check_unique_names(data, ctx):
    """Two entries of one collection must not share a display name (``name``, or ``title`` for
    trends and result sets): the site lists them side by side and readers pick by name."""
    for name in COLLECTIONS:
        seen = {}
        for entry_id, doc in sorted(data.get(name, {}).items()):
            field = "name" if "name" in doc else "title" if "title" in doc else None
            if field is None or not isinstance(doc[field], str):
                continue
            shown = name_key(doc[field])
            if shown in seen:
                yield name, entry_id, field, (f"{doc[field]!r} is also the {field} of data/{name}/{seen[shown]}.yaml; "
                                              "give each entry its own name")
            else:
                seen[shown] = entry_id


# -- placeholders ---------------------------------------------------------------------------------
@doc_check
def check_placeholders(doc, entries, ctx):
    """Warnings (errors where the site is built or CI runs): text still holding a placeholder, ``TODO``
    as ``selector new`` writes it (or FIXME, TBD), or an address on a reserved example domain
    (files.py also warns about ``# TODO`` comments)."""
    for path, key, value in entries:
        items = [(key, value)] if isinstance(value, str) else (
            [(f"{key}[{i}]", item) for i, item in enumerate(value)] if isinstance(value, list) else [])
        for name, item in items:
            if isinstance(item, str) and is_placeholder(item):
                yield (f"{path}.{name}" if path else name), f"still holds the placeholder {item!r}; write the real value", "warning"


_PLACEHOLDER_WORDS = ("todo", "fixme", "tbd")
_EXAMPLE_HOSTS = ("example.com", "example.org", "example.net")


def is_placeholder(text):
    """``TODO: ...``, ``FIXME``, ``TBD`` (any case) or a URL on example.com/.org/.net or a ``.example`` host."""
    head = text.lstrip()[:6].lower()
    if any(head.startswith(word) and not head[len(word):len(word) + 1].isalnum() for word in _PLACEHOLDER_WORDS):
        return True
    if text.startswith(("https://", "http://")):
        try:
            host = (urlsplit(text).hostname or "").rstrip(".")
        except ValueError:  # not a well-formed URL: check_urls says so
            return False
        return host in _EXAMPLE_HOSTS or host.endswith(tuple("." + h for h in _EXAMPLE_HOSTS)) or host.endswith(".example")
    return False


# -- launch templates -------------------------------------------------------------------------------
# quantization ids a flag's `values` may name, per parameter (the rest name the value's role)
_LAUNCH_VALUE_KEYS = {"gpu_layers": {"all", "none"}, "cpu_moe": {"all"}, "fixed": {"fixed"},
                      **{p: set(SPEC_METHODS) for p in ("speculative", "spec_steps", "spec_topk", "spec_draft_tokens")}}


@check
def check_launch_references(data, ctx):
    """A launch template starts a known engine (its id is the engine's), names quantization ids in `values`,
    and says when it was written for another release than the engine's latest (a note: the flags may be stale)."""
    for launch_id, doc in data.get("launch", {}).items():
        for field in ("engine", "backend"):
            if doc.get(field) is not None:
                problem = _ref(ctx, "engines", doc[field], "engine")
                if problem:
                    yield "launch", launch_id, field, problem
        if doc.get("engine") != launch_id:
            yield ("launch", launch_id, "engine", f"is {doc.get('engine')!r} but the template is {launch_id}.yaml; a template "
                   "starts the engine it is named after, and answers look it up by that name", "warning")
        for i, entry in enumerate(doc.get("flags", [])):
            allowed = _LAUNCH_VALUE_KEYS.get(entry["param"])
            for key in entry.get("values", {}):
                if allowed is not None and key not in allowed:
                    yield "launch", launch_id, f"flags[{i}].values", f"{key!r} is not a value role of {entry['param']}; use one of {', '.join(sorted(allowed))}"
                elif allowed is None:
                    problem = _ref(ctx, "quantization", key, "quantization")
                    if problem:
                        yield "launch", launch_id, f"flags[{i}].values", problem
        latest = ((data.get("engines", {}).get(doc.get("engine")) or {}).get("status") or {}).get("latest_version")
        if latest and latest != "unknown" and latest.lstrip("v") != str(doc.get("version", "")).lstrip("v"):
            yield ("launch", launch_id, "version", f"the flags were checked for {doc['version']}, the engine's latest release is "
                   f"{latest}; check the flags against its CLI reference and update version", "info")


@doc_check
def check_launch_flags(doc, entries, ctx):
    """A launch template is a whole, unambiguous command: one model and one port at its release, each flag of the
    right form, release ranges in order, and no flag in a step's program that its `flags` do not define."""
    if "steps" not in doc or "flags" not in doc or "version" not in doc:
        return
    declared = {e.get("flag") for e in doc["flags"] if e["param"] == "fixed"}
    for s, step in enumerate(doc["steps"]):
        for w, word in enumerate(step["program"]):
            if word.startswith("-") and word not in declared:
                yield (f"steps[{s}].program[{w}]", f"{word!r} is a flag the template's `flags` do not define; add it as a "
                       "`fixed` entry with its source, or remove it")
    for i, entry in enumerate(doc["flags"]):
        form, flag = entry["form"], entry.get("flag")
        if form == "positional" and flag is not None:
            yield f"flags[{i}].flag", "a positional value has no flag; remove `flag` or use form option"
        elif form != "positional" and flag is None:
            yield f"flags[{i}].flag", f"form {form} needs the flag (or, for env, the variable name)"
        elif form == "env" and not flag.isupper():
            yield f"flags[{i}].flag", f"{flag!r} is not an environment variable name; form env takes NAME"
        elif form in ("option", "switch") and flag.isupper() and not flag.startswith("-"):
            yield f"flags[{i}].flag", f"{flag!r} is not a command-line flag; write it with its dashes, or use form env"
        if entry.get("step", 0) >= len(doc["steps"]):
            yield f"flags[{i}].step", f"is {entry['step']} but the template has {len(doc['steps'])} step(s)"
        if entry.get("since") and entry.get("until") and version_key(entry["since"]) >= version_key(entry["until"]):
            yield f"flags[{i}].until", f"{entry['until']} is not after since {entry['since']}"
        if (entry["param"] == "port") != ("default" in entry):
            yield f"flags[{i}].default", "a port entry needs its default, and only a port entry has one"
    active = flags_at(doc)
    for param in ("model", "port"):
        if not active.get(param):
            yield "flags", f"has no {param} entry for release {doc['version']}; every command needs one"
    for param, found in sorted(active.items()):
        if param != "fixed" and len(found) > 1:
            yield "flags", (f"has {len(found)} {param} entries for release {doc['version']} ({', '.join(str(e.get('flag')) for e in found)}); "
                            "give the older one `until` and the newer one `since`")
