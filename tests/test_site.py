"""The real site, built with `mkdocs build --strict` inside the tests, checked page by page."""

import html
import json
import re
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


@pytest.mark.parametrize("page", [
    "index.html", "overview/index.html", "formats/index.html", "quantization/index.html", "models/index.html",
    "trends/index.html", "matrix/index.html", "tree/index.html", "scenarios/index.html", "selector/index.html",
    "fit/index.html", "engines/index.html", "figures/index.html", "sources/index.html", "freshness/index.html",
    "contributing/index.html", "tiers/l1/index.html", "tiers/l1-5/index.html", "tiers/l2/index.html", "tiers/l3/index.html",
])
def test_page_exists_with_content(built_site, page):
    path = built_site / page
    assert path.is_file()
    text = path.read_text(encoding="utf-8")
    assert "{{" not in text_of(path), "an unrendered macro"
    assert '<meta http-equiv="Content-Security-Policy"' in text


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


def test_tgi_is_flagged_as_maintenance(built_site):
    assert "maintenance" in text_of(built_site / "engines" / "tgi" / "index.html")
    assert "maintenance" in text_of(built_site / "tiers" / "l2" / "index.html")


def test_published_data_files(built_site, catalog):
    full = json.loads((built_site / "api" / "catalog.json").read_text())
    assert set(full["engines"]) == set(catalog.engines)
    trimmed = json.loads((built_site / "assets" / "selector" / "catalog.json").read_text())
    assert "pick_when" not in trimmed["engines"]["vllm"]
    assert len(json.dumps(trimmed)) < len(json.dumps(full)) / 2
    assert (built_site / "schema" / "engine.schema.json").is_file()
    assert (built_site / "_headers").read_text().count("Content-Security-Policy") == 1


def test_wheel_is_importable_and_matches_source(built_site, tmp_path, catalog):
    manifest = json.loads((built_site / "assets" / "selector" / "manifest.json").read_text())
    wheel = built_site / "assets" / "selector" / manifest["wheel"]
    with zipfile.ZipFile(wheel) as zf:
        assert zf.testzip() is None
        names = zf.namelist()
        zf.extractall(tmp_path)
    assert "selector/rules.py" in names and any(n.endswith("RECORD") for n in names)
    import subprocess
    code = ("import sys; sys.path.insert(0, sys.argv[2]); import json, selector.api as a; from selector.catalog import Catalog; import sys;"
            "a.load(open(sys.argv[1]).read()); print(a.handle(json.dumps({'op':'recommend','answers':{'scale':'local'}})))")
    out = subprocess.run([sys.executable, "-I", "-c", code, str(built_site / "assets" / "selector" / "catalog.json"),
                          str(tmp_path)], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["result"]["candidates"][0]["engine"] == "ollama"


def test_runtime_files_are_self_hosted(built_site, site_port):
    own = f"http://127.0.0.1:{site_port}/"
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (built_site / "assets" / "pyodide" / name).is_file()
    assert (built_site / "assets" / "vendor" / "mermaid.min.js").is_file()
    for page in built_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r'<(?:script|link|img|iframe)\b[^>]*?(?:src|href)="([^"]+)"', text):
            url = m.group(1)
            assert url.startswith(own) or not re.match(r"(https?:)?//", url), (page, url)
    assert "fonts.googleapis" not in "".join(p.read_text(encoding="utf-8") for p in built_site.rglob("*.html"))


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
