"""Write docs/checks.md from the check catalog: the docs read the same list as the gates and the report."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, ".collections"))

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.core import catalog as _catalog  # noqa: E402
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing

TARGET = os.path.join(ROOT, "docs", "checks.md")


def _way(way):
    kind = next(k for k in ("run", "read", "list", "cli", "query") if k in way)
    text = " ".join(way["run"]) if kind == "run" else way["cli"] if kind == "cli" else \
        "%s %s" % ({"read": "cat", "list": "ls", "query": "promql"}[kind], way[kind])
    if way.get("env_flag"):
        text = text.replace("{env_flags}", "%s NAME ..." % way["env_flag"])
    launcher = "with `pyramid_nccl_launcher: %s`: " % way["launcher"] if way.get("launcher") else ""
    if way.get("platform"):
        launcher = "%s%s: " % (PLATFORMS[way["platform"]], " (once per planned port)" if way.get("foreach") else "")
    if way.get("only_if") and not way.get("launcher"):  # the inventory's choice: no fall back to another way
        launcher = "with %s: " % ", ".join("`%s: %s`" % item for item in sorted(way["only_if"].items()))
    return "%s`%s` → `%s`%s" % (launcher, text, way["parser"], " (ntc-templates)" if parsing.PARSERS[way["parser"]].ntc else "")


PLATFORMS = {"eos": "Arista EOS (network_cli)", "nxos": "Cisco NX-OS (network_cli)", "sonic": "SONiC (SSH)",
             "cumulus": "NVIDIA Cumulus (SSH)"}


def _switch_commands(catalog):
    """Per platform, which command is parsed by what, for every switch source."""
    # a source read on one host for the pod (read_on: the InfiniBand subnet's switches) has no switch platform's way
    names = [name for name in _engine_sources(catalog, "switch") if "read_on" not in catalog["sources"][name]]
    out = ["## Switch commands by platform", "",
           "Every switch source runs its platform's commands (`pyramid_switch_os`) in the order shown, the next one only "
           "where the device refuses the one before (\"else\"; JSON first where the platform speaks it), and each parser "
           "yields the same normalized facts (docs/switches.md). (ntc): the template is ntc-templates' own, reused.", "",
           "| Source | " + " | ".join(PLATFORMS[p] for p in _catalog.SWITCH_OSES) + " |",
           "|---|" + "---|" * len(_catalog.SWITCH_OSES)]
    for name in names:
        ways = {}
        for way in catalog["sources"][name]["ways"]:  # every way of a platform, in the order the engine tries them
            ways.setdefault(way["platform"], []).append(way)
        cells = []
        for platform in _catalog.SWITCH_OSES:
            if platform not in ways:  # the checks reading this source declare other platforms
                cells.append("not applicable")
                continue
            cells.append(", else ".join(_switch_way(way) for way in ways[platform]))
        out.append("| `%s`%s | %s |" % (name, " (counters)" if catalog["sources"][name].get("counters") else "",
                                        " | ".join(cells)))
    return out + [""]


def _switch_way(way):
    text = (way["cli"] if "cli" in way else "promql " + way["query"] if "query" in way else " ".join(way["run"])).replace("|", "\\|")
    per_port = " (per port)" if way.get("foreach") else ""
    ntc = " (ntc)" if parsing.PARSERS[way["parser"]].ntc else ""
    return "`%s`%s → `%s`%s" % (text, per_port, way["parser"], ntc)


def _engine_sources(catalog, device):
    names = []
    for check in _catalog.checks_for(catalog, device):
        names.extend(n for n in check["sources"] if n not in names)
    return names


def render(catalog):
    out = ["# Check catalog", "",
           "Generated from `catalog/checklist.yml` by `scripts/gen_docs.py`; do not edit by hand.", "",
           "## Go/no-go checklist", "", "| Layer | Row | Checks |", "|---|---|---|"]
    for row in catalog["rows"]:
        ids = [c["id"] for c in catalog["checks"] if c["row"] == row["id"]]
        out.append("| L%d | %s | %s |" % (row["layer"], row["title"], ", ".join("`%s`" % i for i in ids) or "*not in the catalog yet*"))
    out += [""] + _switch_commands(catalog)
    out += ["## Checks", ""]
    for check in catalog["checks"]:
        expects = ", ".join("`%s`" % e for e in check["expect"]) or "none"
        sources = []
        for name in check["sources"]:
            source = catalog["sources"][name]
            chosen = source.get("launched") or any(w.get("platform") or w.get("only_if") for w in source["ways"])
            joiner = " or " if chosen else " or else "
            ways = joiner.join(_way(w) for w in source["ways"])
            extra = []
            if source.get("foreach"):
                extra.append("once per item of `%s`" % source["foreach"])
            if source.get("optional"):
                extra.append("optional")
            if source.get("launched"):
                extra.append("on the launcher host, across a group of nodes")
            if source.get("read_on"):
                extra.append("read once for the pod, on the reader of `%s`" % source["read_on"])
            if source.get("counters"):
                extra.append("counters: read at the snapshot and again here, judged on the difference")
            if source.get("load"):
                extra.append("loads %s%s: not run under --check" % (source["load"], "".join(
                    " where %s is %s" % (key, " or ".join(str(v) for v in values)) for key, values in sorted(source.get("load_if", {}).items()))))
            sources.append("- `%s`: %s%s" % (name, ways, (" (" + ", ".join(extra) + ")") if extra else ""))
        out += ["### L%d `%s`: %s" % (check["layer"], check["id"], check["title"]), "",
                "Scope: %s (%s). Judge: `%s`. Expectations: %s." % (check["scope"], check["device"], check["judge"], expects),
                "", "Sources:", ""]
        out += sources
        out += ["", "Likely cause on FAIL: %s" % check["cause"], ""]
        if check.get("causes"):
            out += ["Likely cause by kind of miss:", ""]
            out += ["- %s: %s" % (key, text) for key, text in check["causes"].items()]
            out += [""]
        out += ["Go back to: %s" % check["go_back_to"], ""]
    out += ["## Expectations (inventory variables)", "",
            "Validated for every host before any host is touched.", "",
            "| Variable | Type | Default | Meaning |", "|---|---|---|---|"]
    for name, spec in catalog["expectations"].items():
        kind = spec["type"] + ("[%s]" % spec["elements"] if spec.get("elements") else "")
        if spec.get("choices"):
            kind += ", one of %s" % "/".join(str(c) for c in spec["choices"])
        for key, sign in (("min", ">="), ("above", ">"), ("max", "<="), ("below", "<")):
            if key in spec:
                kind += ", %s %s" % (sign, spec[key])
        out.append("| `%s` | %s | `%s` | %s |" % (name, kind, spec.get("default"), spec["description"].replace("\n", " ")))
    out += ["", "## Platforms (expected multi-node all-reduce busbw, GB/s)", "",
            "algbw is judged against the same figure converted for the run's rank count N: busbw x N / (2(N-1)).", "",
            "| Platform | Figures | Source |", "|---|---|---|"]
    for name, platform in catalog["platforms"].items():
        figures = ", ".join("%d B: %s" % (size, value) for size, value in sorted(platform["busbw"].items()))
        out.append("| `%s` (%s) | %s | %s |" % (name, platform["title"], figures, platform["source"]))
    out += ["", "## Parsers", "", "| Parser | Kind | Parses |", "|---|---|---|"]
    for name, entry in sorted(parsing.PARSERS.items()):
        kind = "textfsm (ntc-templates)" if entry.ntc else entry.kind
        out.append("| `%s` | %s | %s |" % (name, kind, entry.description))
    return "\n".join(out) + "\n"


def main():
    text = render(_catalog.load_catalog())
    if "--check" in sys.argv:
        with open(TARGET, encoding="utf-8") as handle:
            if handle.read() != text:
                sys.exit("docs/checks.md is out of date: run `make docs`")
        return
    with open(TARGET, "w", encoding="utf-8") as handle:
        handle.write(text)


if __name__ == "__main__":
    main()
