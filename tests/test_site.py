"""The real site, built with `mkdocs build --strict` inside the tests, checked page by page."""

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

# Figures the seed article states (with the source it names); each must reach the built HTML.
ARTICLE_FIGURES = [
    "up to 1.7x throughput", "v0.7.0", "v0.8.0",                                # vLLM V1 (vLLM blog, Red Hat)
    "96 H100 GPUs (12 nodes x 8)", "52.3K input tok/s per node", "22.3K output tok/s per node",
    "up to 5x output throughput vs plain TP", "$0.20 per 1M output tokens",      # SGLang (LMSYS blog)
    "up to +60% output throughput", "1.8x tokens/s at 85-90%",                   # MTP
    "2025-09-24",                                                                 # TensorRT-LLM v1.0.0
    "up to 61% lower latency", "up to +156% throughput", "1.5x vLLM on gpt-oss (H800)",  # LMDeploy (arXiv:2508.15601)
    "up to 286 tok/s prefill", "~14 tok/s generation",                          # KTransformers tutorial
    "up to +525% throughput", "FAST 2025 Best Paper",                            # Mooncake (arXiv:2407.00079)
    "up to 6.5x speedup (EAGLE-3)",                                              # EAGLE-3 (arXiv:2503.01840)
    "up to 30x throughput", "more than 2x throughput",                           # Dynamo (NVIDIA)
    "120B on one 80 GB GPU", "MoE experts = 90%+ of params",                     # gpt-oss MXFP4
    "KV cache ~50% smaller than FP8", "<1% accuracy loss",                       # NVFP4 KV
]


def text_of(path):
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


def all_text(site):
    return "\n".join(text_of(p) for p in site.rglob("*.html"))


def test_build_is_strict_and_quiet(built_site):
    log = (built_site / ".build-log").read_text()
    assert "WARNING" not in log, log


# every page: its own heading, and the block it exists for (a table, the form, the diagram), rendered in place
TABLE = "<table"
PAGES = {
    "index.html": ("Inference Engine Map", TABLE), "overview/index.html": ("Overview", TABLE),
    "formats/index.html": ("Model formats × engines", TABLE), "quantization/index.html": ("Quantization × engines × hardware", TABLE),
    "models/index.html": ("Reference models", TABLE), "trends/index.html": ("Three trends that change the choice", TABLE),
    "matrix/index.html": ("Decision matrix", TABLE), "tree/index.html": ("Decision tree", '<svg class="iem-tree-svg"'),
    "scenarios/index.html": ("Scenarios: one-line answers", TABLE), "selector/index.html": ("Selector", 'id="selector-form"'),
    "fit/index.html": ("Will it fit?", 'id="selector-form"'), "engines/index.html": ("Engines and systems", 'href="vllm/"'),
    "figures/index.html": ("Headline figures", TABLE), "sources/index.html": ("Sources", TABLE),
    "freshness/index.html": ("Freshness", TABLE), "contributing/index.html": ("Contributing", TABLE),
    "tiers/l1/index.html": ("L1 Local and single machine", TABLE), "tiers/l1-5/index.html": ("L1.5 Heterogeneous offload", TABLE),
    "tiers/l2/index.html": ("L2 High-performance serving", TABLE), "tiers/l3/index.html": ("L3 Distributed and disaggregated", TABLE),
}


@pytest.mark.parametrize("page", list(PAGES))
def test_page_exists_with_content(built_site, page):
    heading, block = PAGES[page]
    path = built_site / page
    assert path.is_file()
    text = path.read_text(encoding="utf-8")
    assert "{{" not in text_of(path), "an unrendered macro"
    assert '<meta http-equiv="Content-Security-Policy"' in text
    article = re.search(r"<article[^>]*>(.*?)</article>", text, re.S)
    assert article, "no article"
    body = article.group(1)
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", body, re.S)
    assert h1 and html.unescape(re.sub(r"<[^>]+>", "", h1.group(1))).replace("¶", "").strip() == heading
    assert "<!--iem" not in body, "a macro placeholder left in place"
    assert block in body, f"{page} lost {block!r}"
    assert len(html.unescape(re.sub(r"<[^>]+>", " ", body)).split()) >= 300, "fewer than 300 words of content"


def test_every_engine_has_a_page_with_its_facts(built_site, catalog):
    for engine in catalog.engines.values():
        page = built_site / "engines" / engine["id"] / "index.html"
        assert page.is_file(), engine["id"]
        text = text_of(page)
        assert engine["name"] in text and engine["positioning"] in text
        for source in engine["sources"].values():
            assert source["url"] in page.read_text(encoding="utf-8") or html.escape(source["url"]) in page.read_text(encoding="utf-8")
        for figure in engine.get("figures", []):
            assert figure["display"] in text, (engine["id"], figure["id"])


def test_every_engine_has_a_row_in_the_overview(built_site, catalog):
    text = (built_site / "overview" / "index.html").read_text(encoding="utf-8")
    for engine_id in catalog.engines:
        assert f'href="../engines/{engine_id}/"' in text, engine_id


def test_tables_cover_the_catalog(built_site, catalog):
    formats = text_of(built_site / "formats" / "index.html")
    quant = text_of(built_site / "quantization" / "index.html")
    for f in catalog.formats.values():
        assert f["name"] in formats
    for q in catalog.quantization.values():
        assert q["name"] in quant
    for g in catalog.gpus.values():
        assert g["name"] in quant
    matrix = text_of(built_site / "matrix" / "index.html")
    for d in catalog.matrix.values():
        assert d["name"] in matrix
        for s in d["scores"].values():
            assert s["rationale"] in matrix


def test_every_figure_in_the_data_is_on_the_site(built_site, catalog):
    text = all_text(built_site)
    for collection in ("engines", "quantization", "trends"):
        for entry in getattr(catalog, collection).values():
            for figure in entry.get("figures", []):
                assert figure["display"] in text, (collection, entry["id"], figure["id"])


@pytest.mark.parametrize("figure", ARTICLE_FIGURES)
def test_article_figures_are_on_the_site(built_site, figure):
    assert figure in all_text(built_site)


def test_vendor_reported_figures_are_flagged(built_site, catalog):
    page = (built_site / "figures" / "index.html").read_text(encoding="utf-8")
    flagged = sum(1 for c in ("engines", "quantization", "trends") for e in getattr(catalog, c).values()
                  for f in e.get("figures", []) if f.get("vendor_reported"))
    assert page.count('class="iem-vendor"') == flagged > 0


def test_sources_page_lists_every_citation(built_site, catalog):
    page = (built_site / "sources" / "index.html").read_text(encoding="utf-8")
    for _, _, _, src in catalog.all_sources():
        assert html.escape(src["url"]) in page, src["url"]


def test_engines_not_active_are_flagged_where_they_are_listed(built_site, catalog):
    """TGI (maintenance) and any engine not active: a warning naming its status, date and successors on its own page,
    its tier page and the overview; an active engine has none of these."""
    assert catalog.engines["tgi"]["status"]["value"] == "maintenance"
    overview = (built_site / "overview" / "index.html").read_text(encoding="utf-8")
    overview = overview[overview.index("<article"):]  # not the navigation's links
    flagged = 0
    for engine in catalog.engines.values():
        status = engine["status"]
        own = (built_site / "engines" / engine["id"] / "index.html").read_text(encoding="utf-8")
        tier = text_of(built_site / "tiers" / engine["tier"].lower().replace(".", "-") / "index.html")
        row = re.search(rf'<a href="../engines/{re.escape(engine["id"])}/"[^>]*>.*?</tr>', overview, re.S).group(0)
        if status["value"] == "active":
            assert '<div class="admonition warning">' not in own.split('<table class="iem-table iem-facts"')[0], engine["id"]
            assert "iem-warn" not in row, engine["id"]
            continue
        flagged += 1
        admonition = re.search(r'<div class="admonition warning">(.*?)</div>', own, re.S)
        assert admonition, engine["id"]
        said = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", admonition.group(1))).split())
        assert f"{engine['name']} is in {status['value']} mode since {status['since']}" in said, said
        for successor in status.get("successors", []):
            assert catalog.engines[successor]["name"] in said, (engine["id"], successor, said)
        assert f"⚠ {status['value'].capitalize()} since {status['since']}" in tier, engine["id"]
        assert f"⚠ {status['value']} since {status['since']}" in html.unescape(row), engine["id"]
    assert flagged >= 1


def selector_file(site, key):
    """A file the worker loads, found the way the worker finds it: through assets/selector/manifest.json."""
    manifest = json.loads((site / "assets" / "selector" / "manifest.json").read_text(encoding="utf-8"))
    return (site / "assets" / "selector" / manifest[key]).resolve()


def test_published_data_files(built_site, catalog):
    full = json.loads((built_site / "api" / "catalog.json").read_text())
    assert set(full["engines"]) == set(catalog.engines)
    trimmed = json.loads(selector_file(built_site, "catalog").read_text())
    assert "pick_when" not in trimmed["engines"]["vllm"]
    assert len(json.dumps(trimmed)) < len(json.dumps(full)) / 2
    assert (built_site / "schema" / "engine.schema.json").is_file()


def test_wheel_is_importable_and_matches_source(built_site, tmp_path, catalog):
    wheel = selector_file(built_site, "wheel")
    with zipfile.ZipFile(wheel) as zf:
        assert zf.testzip() is None
        names = zf.namelist()
        zf.extractall(tmp_path)
    assert "selector/rules.py" in names and any(n.endswith("RECORD") for n in names)
    import subprocess
    code = ("import sys; sys.path.insert(0, sys.argv[2]); import json, selector.api as a; from selector.catalog import Catalog; import sys;"
            "a.load(open(sys.argv[1]).read()); print(a.handle(json.dumps({'op':'recommend','answers':{'scale':'local'}})))")
    out = subprocess.run([sys.executable, "-I", "-c", code, str(selector_file(built_site, "catalog")),
                          str(tmp_path)], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["result"]["candidates"][0]["engine"] == "ollama"


def test_runtime_files_are_self_hosted(built_site, site_port):
    own = f"http://127.0.0.1:{site_port}/"
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (selector_file(built_site, "pyodide") / name).is_file()
    for page in built_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r'<(?:script|link|img|iframe)\b[^>]*?(?:src|href)="([^"]+)"', text):
            url = m.group(1)
            assert url.startswith(own) or not re.match(r"(https?:)?//", url), (page, url)
    assert "fonts.googleapis" not in "".join(p.read_text(encoding="utf-8") for p in built_site.rglob("*.html"))


# ---------------------------------------------------------------------------------------------
# Caching: a file may be cached as immutable only if its path names a hash of its content.

HASHED_FOLDERS = ("assets/selector", "assets/pyodide")
MATERIAL_BUNDLE = re.compile(r"assets/(javascripts|stylesheets)/(workers/)?[a-z]+\.[0-9a-f]{8}\.min\.(js|css)(\.map)?")


def folder_hash(folder):
    """Recomputed here, not taken from the build: SHA-256 over each file's name and SHA-256, 16 hex digits."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix != ".gz"):
        h.update(f"{path.name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    return h.hexdigest()[:16]


def content_folders(site):
    return {f"{parent}/{d.name}": d for parent in HASHED_FOLDERS for d in (site / parent).iterdir() if d.is_dir()}


def site_files(site):
    """Every file a host would serve, as its URL path (the .gz siblings are served under their original URL)."""
    return sorted("/" + p.relative_to(site).as_posix() for p in site.rglob("*")
                  if p.is_file() and p.suffix != ".gz" and p.name not in ("_headers", ".build-log"))


def cache_of(rules, path):
    from sitesrv import matching_rules
    return [v for _pattern, headers in matching_rules(rules, path) for k, v in headers if k.lower() == "cache-control"]


def test_runtime_folders_are_named_by_their_content(built_site):
    folders = content_folders(built_site)
    for rel, folder in folders.items():
        assert folder.name == folder_hash(folder), f"{rel} does not hold what its name says"
    assert len(folders) == 3, sorted(folders)  # wheel, catalog, Pyodide
    manifest = json.loads((built_site / "assets" / "selector" / "manifest.json").read_text(encoding="utf-8"))
    named = {(built_site / "assets" / "selector" / manifest[k]).resolve() for k in ("wheel", "catalog", "pyodide")}
    assert {p if p.is_dir() else p.parent for p in named} == {f.resolve() for f in folders.values()}
    worker = (built_site / "assets" / "javascripts" / "selector-worker.js").read_text(encoding="utf-8")
    assert "import(" in worker and "pyodide/pyodide.mjs" not in worker  # Pyodide comes from the manifest's folder


def test_headers_cache_only_content_addressed_files(built_site):
    check_cache_headers(built_site)


def check_cache_headers(built_site):
    from sitesrv import parse_headers
    text = (built_site / "_headers").read_text(encoding="utf-8")
    rules = parse_headers(text)
    assert len(rules) <= 100, "Cloudflare Pages reads at most 100 rules"
    assert max(len(line) for line in text.splitlines()) <= 2000, "Cloudflare Pages reads lines of at most 2,000 characters"
    hashed = {rel for rel, folder in content_folders(built_site).items() if folder.name == folder_hash(folder)}
    immutable, problems = [], []
    for path in site_files(built_site) + ["/"]:
        values = cache_of(rules, path)
        if len(values) != 1:
            problems.append(f"{path}: {len(values)} Cache-Control rules match ({values})")
            continue
        if "immutable" in values[0]:
            immutable.append(path)
            rel = path.lstrip("/")
            if not (rel.rpartition("/")[0] in hashed or MATERIAL_BUNDLE.fullmatch(rel)):
                problems.append(f"{path}: immutable, but no content hash in its path")
        elif values[0] != "no-cache":
            problems.append(f"{path}: Cache-Control {values[0]!r}")
    assert not problems, "\n".join(problems)
    # the files a deploy must reach at once are revalidated; the runtime is not
    for path in ("/", "/index.html", "/selector/", "/tree/index.html", "/assets/selector/manifest.json",
                 "/assets/javascripts/site.js", "/assets/javascripts/selector-worker.js",
                 "/api/catalog.json", "/search/search_index.json"):
        assert cache_of(rules, path) == ["no-cache"], path
    assert any(p.endswith("/pyodide.asm.wasm") for p in immutable)
    assert any(p.endswith(".whl") for p in immutable) and any(p.endswith("/catalog.json") for p in immutable)
    assert any("/bundle." in p for p in immutable)
    for pattern, _headers in rules:  # an immutable splat names its content hash
        if pattern.endswith("*") and any("immutable" in v for _k, v in _headers):
            assert pattern.rstrip("*").strip("/") in hashed, pattern


def test_a_changed_rule_or_fact_gets_new_names(built_site, tmp_path, site_port):
    """Build a copy of the project with a comment added to selector/rules.py and one engine renamed: the wheel
    and the catalog move to new folders (old names gone), Pyodide keeps its folder, and _headers follows."""
    from conftest import ROOT
    src = tmp_path / "src"
    skip = {".git", ".venv", "node_modules", "site", "bench-results", ".cache", "tests", ".pytest_cache"}
    src.mkdir()
    for item in ROOT.iterdir():
        if item.name not in skip:
            (shutil.copytree(item, src / item.name, ignore=shutil.ignore_patterns("__pycache__"))
             if item.is_dir() else shutil.copy2(item, src / item.name))
    rules_py = src / "selector" / "rules.py"
    rules_py.write_text(rules_py.read_text(encoding="utf-8") + "\n# a changed rule\n", encoding="utf-8")
    engine = src / "data" / "engines" / "ollama.yaml"
    text, n = re.subn(r"^name: (\w+)$", r"name: \1 Renamed", engine.read_text(encoding="utf-8"), count=1, flags=re.M)
    assert n == 1
    engine.write_text(text, encoding="utf-8")
    out = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=src,
                          env={**os.environ, "SITE_URL": f"http://127.0.0.1:{site_port}/", "NO_MKDOCS_2_WARNING": "1",
                               "IEM_NODE_MODULES": os.environ.get("IEM_NODE_MODULES", str(ROOT / "node_modules")), "IEM_DATA_DIR": str(src / "data")},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    def manifest(site):
        return json.loads((site / "assets" / "selector" / "manifest.json").read_text(encoding="utf-8"))

    before, after = manifest(built_site), manifest(out)
    assert after["wheel"] != before["wheel"] and after["catalog"] != before["catalog"]
    assert after["pyodide"] == before["pyodide"]
    for key in ("wheel", "catalog"):
        assert not (out / "assets" / "selector" / before[key]).exists()
        assert (out / "assets" / "selector" / after[key]).is_file()
    assert "# a changed rule" in zipfile.ZipFile(selector_file(out, "wheel")).read("selector/rules.py").decode()
    assert "Ollama Renamed" in selector_file(out, "catalog").read_text(encoding="utf-8")
    headers = (out / "_headers").read_text(encoding="utf-8")
    for key in ("wheel", "catalog"):
        assert after[key].split("/")[0] in headers and before[key].split("/")[0] not in headers
    check_cache_headers(out)


def test_build_fails_on_bad_data(tmp_path):
    import shutil
    from conftest import ROOT, build_site
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    p = data / "engines" / "vllm.yaml"
    p.write_text(p.read_text().replace("id: vllm", "id: vllm-typo", 1))
    proc = build_site(tmp_path / "site", "http://127.0.0.1:8000/", {"IEM_DATA_DIR": str(data)}, check=False)
    assert proc.returncode != 0
    assert "data/engines/vllm.yaml: id:" in proc.stdout + proc.stderr
