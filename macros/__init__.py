"""mkdocs-macros entry point: thin wrappers around the pure renderers.

Every macro takes the catalog from :func:`macros.site.catalog` (the same loader
``python -m selector validate`` uses) and the current page URL for relative links.
"""

from . import forms, render, site
from .html import md_text


def define_env(env):
    def page_url():
        page = env.page
        return page.url if page is not None else ""

    def cat():
        return site.catalog()

    simple = [
        "overview_table", "feature_table", "format_table", "format_list", "hardware_table", "quant_reference",
        "quant_engine_table", "gpu_table", "model_table", "trends", "matrix", "tree_list", "tree_diagram",
        "scenarios", "compare", "sources_table", "stale_facts", "verified_table", "tiers_glance", "engine_index", "all_figures",
    ]
    for name in simple:
        fn = getattr(render, name)
        env.macro(lambda fn=fn: fn(cat(), page_url()), name)

    @env.macro
    def engine_page(engine_id):
        return render.engine_page(cat(), engine_id, page_url())

    @env.macro
    def engine_name(engine_id):
        return md_text(cat().engines[engine_id]["name"])  # a Markdown heading: escape Markdown too

    @env.macro
    def tier_page(tier_id):
        return render.tier_page(cat(), tier_id, page_url())

    @env.macro
    def tier_title(tier_id):
        tier = cat().tiers[tier_id]
        return md_text(f"{tier['id']} {tier['name']}")

    @env.macro
    def selector_form(op="recommend"):
        return forms.form(cat(), page_url(), op)

    @env.macro
    def count(collection):
        return len(getattr(cat(), collection))

    @env.macro
    def source_total():
        return len(cat().all_sources())

    @env.macro
    def contributing():
        text = (site.ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
        return text.split("\n", 1)[1] if text.startswith("# ") else text
