"""mkdocs-macros entry point: wiring only.

Each macro takes the catalog from :func:`macros.site.catalog` (the loader ``python -m selector
validate`` uses), asks a renderer in :mod:`macros.views` (one module per page family) for data,
renders it with a template from ``macros/templates/`` and hands Markdown a placeholder (:func:`macros.site.stash`): the markup is put
in after Markdown has run (``hooks.on_page_content``), so data text never reaches a Markdown parser.
Headings stay Markdown (the table of contents needs them) and their text is escaped for Markdown.
"""

import html
from pathlib import Path

from mkdocs.exceptions import PluginError

from datatools.files import Refused, read_bytes

from . import feed, forms, site, views
from .templating import render

# macro name -> (renderer, template, name of the template variable)
TABLES = {
    "overview_table": views.tables.overview_table, "format_list": views.tables.format_list,
    "quant_reference": views.tables.quant_reference, "gpu_table": views.tables.gpu_table,
    "model_table": views.tables.model_table, "all_figures": views.tables.all_figures,
    "feature_table": views.grids.feature_table, "format_table": views.grids.format_table,
    "hardware_table": views.grids.hardware_table, "quant_engine_table": views.grids.quant_engine_table,
    "scenarios": views.scenarios.scenarios, "tiers_glance": views.tiers.tiers_glance,
    "sources_table": views.sources.sources_table, "stale_facts": views.sources.stale_facts,
    "verified_table": views.sources.verified_table, "renamed_ids": views.sources.renamed_ids,
    "others_table": views.others.others_table,
}
BLOCKS = {"tree_list": (views.tree.tree_list, "tree-list.html"), "tree_diagram": (views.tree.tree_diagram, "tree-diagram.html"),
          "compare": (views.compare.compare, "compare.html"), "glossary": (views.glossary.glossary, "glossary.html")}


def sections_markdown(view, page_url, heading_level=2):
    """Markdown for a list of sections: a Markdown heading (escaped) and a placeholder for each block."""
    out = []
    for sec in view["sections"]:
        if sec["heading"]:
            out.append("#" * heading_level + " " + site.md_heading(sec["heading"]))
        out.append(site.stash(render(sec["template"], page_url, **sec["data"])))
    return "\n\n".join(out)


def results_markdown(view, page_url):
    """The explorer: filters, then per comparable set a Markdown heading (in the table of contents, with a
    stable ``#set-<id>`` anchor) and a placeholder for its section (method, sources, charts, table)."""
    out = [site.stash(render("results-filters.html", page_url, filters=view["filters"], total=view["total"],
                             groups=len(view["groups"])))]
    if view.get("overview", {}).get("charts"):
        out.append("## Cost per million tokens by model {#cost-by-model}")
        out.append(site.stash(render("results-overview.html", page_url, **view["overview"])))
    if view.get("load"):
        out.append("## Load: where the cheapest setup changes {#load}")
        out.append(site.stash(render("results-load.html", page_url, curves=view["load"])))
    for g in view["groups"]:
        anchor = f" {{#{g['anchor']}}}" if site.ID_RE.fullmatch(g["id"]) else ""
        out.append("## " + site.md_heading(g["title"]) + anchor)
        out.append(site.stash(render("results-group.html", page_url, g=g)))
    return "\n\n".join(out)


def on_pre_page_macros(env):
    """A tier page names its tier in front matter (``tier: L2``) and nothing else: its meta description
    is made from the data (the tier and the systems whose ``tier:`` it is). Material prints the
    description as HTML, hence the escaping."""
    tier_id = env.page.meta.get("tier")
    if tier_id is None:
        return
    where = f"docs/{env.page.file.src_uri}"
    tiers = site.catalog().tiers
    if tier_id not in tiers:
        raise PluginError(f"{where}: tier: {tier_id!r} is not a tier of data/tiers/ (one of {', '.join(sorted(tiers))})")
    if env.page.url != views.common.tier_url(tier_id):
        raise PluginError(f"{where}: tier: {tier_id} belongs on {views.common.tier_url(tier_id)}, not {env.page.url}")
    if "description" in env.page.meta:
        raise PluginError(f"{where}: description: remove it, a tier page's description is made from the data")
    env.page.meta["description"] = html.escape(views.tiers.tier_description(site.catalog(), tier_id), quote=True)


def define_env(env):
    def page_url():
        return env.page.url if env.page is not None else ""

    cat = site.catalog

    # Glossary terms become <abbr title> on every Markdown page: the abbr extension's own glossary
    # option takes them as a dict, so no abbreviation is typed by hand and none becomes Markdown text.
    if "abbr" in env.conf["markdown_extensions"]:
        try:
            terms = views.glossary.abbreviations(cat())
        except site.DataError:
            terms = {}  # hooks.on_config reports the data problem and stops the build
        env.conf["mdx_configs"].setdefault("abbr", {})["glossary"] = terms

    for name, fn in TABLES.items():
        env.macro(lambda fn=fn: site.stash(render("table.html", page_url(), t=fn(cat()), empty="")), name)
    for name, (fn, template) in BLOCKS.items():
        env.macro(lambda fn=fn, template=template: site.stash(render(template, page_url(), **fn(cat()))), name)

    @env.macro
    def recent_changes():
        """The facts the newest commits to data/ changed (git history, read as the feed reads it)."""
        repo = Path(env.conf["config_file_path"]).parent
        return site.stash(render("changes.html", page_url(), **feed.changes_view(feed.data_commits(repo, limit=15))))

    @env.macro
    def matrix():
        data = views.matrix.matrix(cat())
        return (site.stash(render("matrix.html", page_url(), scores=data["scores"])) + "\n\n## What the scores mean\n\n"
                + site.stash(render("matrix.html", page_url(), rubric=views.matrix.matrix_rubric(cat()))) + "\n\n## Why each score\n\n"
                + site.stash(render("table.html", page_url(), t=data["notes"], empty="")))

    @env.macro
    def trends():
        return sections_markdown(views.trends.trends(cat()), page_url())

    @env.macro
    def engine_index():
        return sections_markdown(views.engines.engine_index(cat()), page_url())

    @env.macro
    def engine_page():
        """The page of the engine this generated page belongs to (from its file name, never from page source)."""
        view = views.engines.engine_page(cat(), site.engine_id_of(env.page))
        head = site.stash(render("engine-head.html", page_url(), **view["head"]))
        return f"# {site.md_heading(view['name'])}\n\n{head}\n\n" + sections_markdown(view, page_url())

    @env.macro
    def results_explorer():
        return results_markdown(views.results.results_explorer(cat()), page_url())

    def page_tier(tier_id):
        return tier_id or env.page.meta["tier"]  # a tier page's front matter names its tier

    @env.macro
    def tier_page(tier_id=None):
        return sections_markdown(views.tiers.tier_page(cat(), page_tier(tier_id)), page_url())

    @env.macro
    def tier_title(tier_id=None):
        tier = cat().tiers[page_tier(tier_id)]
        return site.md_heading(f"{tier['id']} {tier['name']}")

    @env.macro
    def selector_form(op="recommend"):
        return site.stash(render("form.html", page_url(), **forms.form(cat(), op)))

    @env.macro
    def count(collection):
        return len(getattr(cat(), collection))

    @env.macro
    def source_total():
        return len(cat().all_sources())

    @env.macro
    def contributing():
        try:  # the same door as data files: a regular file only, never a link, a pipe or a device
            text = read_bytes(site.ROOT / "CONTRIBUTING.md", folder="the repository", what="the site's files").decode("utf-8")
        except Refused as exc:
            raise PluginError(f"CONTRIBUTING.md: {exc}") from None
        text = text.replace("](docs/", "](")  # links written for GitHub (repo root) point into docs/ here
        return text.split("\n", 1)[1] if text.startswith("# ") else text
