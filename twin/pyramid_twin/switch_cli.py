"""The CLI of a twin EOS or NX-OS switch: what network_cli talks to over SSH.

Served in entry.py's process (switch_session.become) for a session at a switch's address (127.2.x.y), with a PTY for an interactive
shell (network_cli) or with the command of an exec request (``ssh leaf1-r0 'show version'``). It
prints the prompt, answers the product's ``show`` commands from formats_<os>.py in the vendor's
format, and the vendor's error for anything else. A switch with the prompt_timeout fault answers one
command and then never prints its prompt again, as a wedged CLI does; one with cli_stall pauses
mid-answer right after a line that looks like a prompt, as a busy switch CPU can; one with json_unconverted refuses
the `| json` form of the commands it names, as an EOS release without their JSON model does. An EOS session starts
unprivileged (`leaf>`) until `enable`, as a login below privilege 15 does.
Hot path: stdlib only.
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run as a script under -I -S
from pyramid_twin import switch_session  # noqa: E402

BANNER = {
    "nxos": ("Cisco Nexus Operating System (NX-OS) Software\nTAC support: http://www.cisco.com/tac\n"
             "Copyright (C) 2002-2024, Cisco and/or its affiliates.\nAll rights reserved.\n"),
    "eos": "Last login: Mon Nov 23 09:12:44 2026 from 10.9.0.5\n",
}
PROMPT_LIKE = re.compile(r"(?m)^[A-Za-z0-9][\w.-]*[#>]")
# EOS's answer to `| json` of a command its release has no JSON model for (aristanetworks/vane's device drivers list it)
UNCONVERTED = '% This is an unconverted command\n{\n    "errors": [\n        "This is an unconverted command"\n    ]\n}\n'
SILENT = ("terminal length 0", "terminal width 512", "terminal width 511", "terminal dont-ask", "enable",
          "terminal session-timeout 0")
# An EOS login lands in unprivileged EXEC mode (privilege 1, `leaf>`) and enters privileged EXEC (`leaf#`) on `enable`,
# what network_cli's become sends (ansible_become_method: enable); no enable secret is set, as on a fresh EOS, so no
# password prompt. Unprivileged, EOS refuses the running-config with this line (an Arista user at `r4>`: "show
# running-config ... % Invalid input (privileged mode required)"). NX-OS has no such mode: a login lands at `leaf#` and
# its role decides (network-operator reads the running-config), so network_cli's become does nothing there.
PRIVILEGED_ONLY = {"eos": ("show running-config",)}
PRIVILEGE_REFUSAL = "% Invalid input (privileged mode required)\n"


def answer(switch, command, privileged=True):
    """(text, known) for one command line; ``privileged``: the session is in privileged EXEC mode."""
    formats = switch_session.formats_of(switch)
    command = " ".join(command.split())
    if not command or command in SILENT:
        return "", True
    if not privileged and command.startswith(PRIVILEGED_ONLY.get(switch["os"], ())):
        return PRIVILEGE_REFUSAL, False
    base, json_form = command[:-len(" | json")], command.endswith(" | json")
    if json_form and ({"*", base} & set(switch.get("json_unconverted") or ())):
        return UNCONVERTED, False
    handler = formats.COMMANDS.get(command)
    if handler is None:
        return formats.error(command)[0], False
    return handler(switch_session.snapshot_now(switch)), True


def interactive(switch):
    privileged = switch["os"] not in PRIVILEGED_ONLY
    prompt = "%s%s" % (switch["hostname"], "#" if privileged else ">")
    out = sys.stdout
    out.write(BANNER.get(switch["os"], ""))
    out.write(prompt)
    out.flush()
    stall = switch["cli_stall"]
    for raw in sys.stdin:
        command = raw.strip()
        if command in ("exit", "logout", "quit"):
            return 0
        if command in ("enable", "disable") and switch["os"] in PRIVILEGED_ONLY:
            privileged, text = command == "enable", ""
            prompt = "%s%s" % (switch["hostname"], "#" if privileged else ">")
        else:
            text = answer(switch, command, privileged)[0]
        if text and not text.endswith("\n"):
            text += "\n"
        like = PROMPT_LIKE.search(text) if stall and stall["times"] > 0 else None
        if like:
            stall["times"] -= 1
            out.write(text[:like.end()])
            out.flush()
            time.sleep(stall["seconds"])
            text = text[like.end():]
        out.write(text)
        if switch["prompt_timeout"] and command.startswith("show"):
            out.flush()
            while True:  # the CLI is wedged: output, then no prompt ever again
                time.sleep(3600)
        out.write(prompt)
        out.flush()
    return 0


def serve(switch, command=None):
    """The session: one command (an exec request, as `ssh switch 'show version'` runs it, as a privilege-15 login's
    would: only people and the twin's own tests ask one), else the interactive CLI."""
    if command is not None:
        text, known = answer(switch, command)
        sys.stdout.write(text)
        return 0 if known else 1
    return interactive(switch)


def main(argv):
    return serve(switch_session.load(argv[1]), argv[2] if len(argv) > 2 else None)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
