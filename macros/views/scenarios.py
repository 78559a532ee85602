"""The scenarios page: each situation with the selector's own first answers and a link to try it."""

from urllib.parse import urlencode

from selector.rules import recommend

from .common import engine_link, link, table, text


def scenario_query(answers):
    return urlencode({k: ",".join(v) if isinstance(v, list) else v for k, v in answers.items()}, safe=",")


def scenario_engines(catalog, scenario, limit=2):
    """The selector's first candidates for the scenario's answers: the engines column is the selector's own answer."""
    return [c["engine"] for c in recommend(catalog, scenario["answers"])["candidates"][:limit]]


def scenarios(catalog):
    rows = []
    for s in sorted(catalog.scenarios.values(), key=lambda s: s["order"]):
        names = []
        for i, e in enumerate(scenario_engines(catalog, s)):
            if i:
                names.append({"sep": ", "})
            names.append(engine_link(catalog, e))
        rows.append([text(s["situation"]), text(s["answer"]), names, link("selector/?" + scenario_query(s["answers"]), "try it")])
    return table(["Situation", "Answer", "Engines", "Selector"], rows)
