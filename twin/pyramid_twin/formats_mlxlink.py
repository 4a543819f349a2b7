"""NVIDIA MFT's mlxlink on a twin node (issue 67): `mlxlink -d <rail> -p 1 -c -m`, one rail's own physical layer.

The layout is mstflint's (mlxlink/modules/printutil): each section "\\n<title>\\n<dashes>\\n", each record its key padded
to 37 columns, ": ", its value; the sections in the order MFT 4.30 prints them with -m -c, as the BlueField-3 capture in
tests/unit/parsers/linux_mlxlink/bluefield3_dac_real.raw shows. A rail's physical layer is healthy unless a fault says:
an OSFP optic at 45 C (its own alarm at 75 C), a raw BER of 2E-9 (a real healthy 400G link's), nothing past the FEC
(15E-255, mlxlink's figure for no error counted). Faults: `nic_ber` (`raw_ber`, `effective_errors`) and `nic_module_hot`
(`celsius`), on one rail."""

LINE = 37  # PDDR_LINE_LEN
NO_ERROR = "15E-255"
HEALTHY = {"raw_ber": "2E-9", "effective_errors": 0, "celsius": 45, "link_down": 0}
# the Speed word mlxlink prints for a port's rate: Ethernet by its rate, InfiniBand by its generation
ETH_SPEED = {400: "400G", 200: "200G", 100: "100G"}
IB_SPEED = {400: "IB-NDR", 200: "IB-HDR", 100: "IB-EDR"}
FEC = {"Ethernet": "Standard RS-FEC - RS(544,514)", "InfiniBand": "Ethernet_Consortium_LL_50G_RS_FEC_PLR -(272,257+1)"}


def _section(title, records):
    lines = ["", title, "-" * len(title)]
    lines += ["%s%s: %s" % (key, " " * max(LINE - 2 - len(key), 0), value) for key, value in records]
    return "\n".join(lines) + "\n"


def phy(rail):
    """The rail's physical layer as its faults left it."""
    return dict(HEALTHY, **rail.get("phy", {}))


def mlxlink(state, args, env):  # pylint: disable=unused-argument
    """`mlxlink -d <rail> -p 1 -c -m` (any order of -c and -m); an unknown device as mlxlink_ui.cpp says it."""
    words = list(args)
    if "-d" not in words[:-1] or sorted(w for w in words if w.startswith("-") and w != "-d") != ["-c", "-m", "-p"]:
        from pyramid_twin.fake_tool import not_simulated  # pylint: disable=import-outside-toplevel
        return not_simulated("mlxlink", words)
    device = words[words.index("-d") + 1]
    rail = next((item for item in state["rails"] if item["device"] == device), None)
    if rail is None:
        return 1, "", '-E- Failed to open device: "%s", No such file or directory\n' % device
    return 0, render(rail), ""


def render(rail):
    link = phy(rail)
    up = rail["state"] == "Active"
    infiniband = rail["link_layer"] == "InfiniBand"
    speed = (IB_SPEED if infiniband else ETH_SPEED).get(rail["rate"], "%dG" % rail["rate"]) if up else "N/A"
    effective = int(link["effective_errors"])
    text = _section("Operational Info", [
        ("State", rail["state"]), ("Physical state", rail["phys_state"] if up else "Polling"), ("Speed", speed),
        ("Width", "4x" if up else "N/A"), ("FEC", FEC[rail["link_layer"]] if up else "N/A"),
        ("Loopback Mode", "No Loopback"), ("Auto Negotiation", "ON")])
    text += _section("Troubleshooting Info", [
        ("Status Opcode", "0"), ("Group Opcode", "N/A"), ("Recommendation", "No issue was observed")])
    text += _section("Tool Information", [
        ("Firmware Version", rail["firmware"]), ("amBER Version", "3.6"), ("MFT Version", "mft 4.30.1-8")])
    text += _section("Module Info", [
        ("Temperature [C]", "%d [-5..75]" % link["celsius"]), ("Voltage [mV]", "3261.2 [2970..3630]"),
        ("Identifier", "OSFP"), ("Cable Type", "Optical Module (separated)"), ("Vendor Name", "Nvidia"),
        ("Vendor Part Number", "MMA4Z00-NS"), ("Vendor Serial Number", "MT24%s" % rail["device"].upper().replace("_", "")),
        ("Digital Diagnostic Monitoring", "Yes")])
    text += _section("Physical Counters and BER Info", [
        ("Time Since Last Clear [Min]", "4320.0"), ("Effective Physical Errors", str(effective)),
        ("Effective Physical BER", "1E-12" if effective else NO_ERROR),
        ("Raw Physical Errors Per Lane", "0,0,0,0" if link["raw_ber"] == NO_ERROR else "1203,987,1411,1096"),
        ("Link Down Counter", str(link["link_down"])), ("Link Error Recovery Counter", "0"),
        ("Raw Physical BER", link["raw_ber"])])
    return text


def fault(kind, rail, spec):
    """nic_ber: the rail's raw BER (`raw_ber`, text as mlxlink prints it, 5E-6) and its effective errors
    (`effective_errors`, 0); nic_module_hot: its module's temperature (`celsius`, 78)."""
    link = rail.setdefault("phy", {})
    if kind == "nic_ber":
        link["raw_ber"] = str(spec.get("raw_ber", "5E-6"))
        link["effective_errors"] = int(spec.get("effective_errors", 0))
    else:
        link["celsius"] = int(spec.get("celsius", 78))
