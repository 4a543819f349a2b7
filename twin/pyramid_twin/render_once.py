"""Render a scenario's digest once, however many sessions of a pod connect at the same moment.

Nodes (entry.py -> render.py) and switches (switch_session.py -> switch_render.py) share it: the
first session runs the renderer under DIGEST_DIR/.lock while the others wait on the lock, then find
the marker the renderer left. Hot path: stdlib only, imported on a cache miss.
"""

import fcntl
import os
import subprocess
import sys


def render_once(digest_dir, marker, renderer_argv):
    """Run ``python RENDERER_ARGV`` unless ``marker`` exists or appears while waiting for the lock.

    False when the renderer failed (it said why on stderr, which the session passes on)."""
    os.makedirs(digest_dir, exist_ok=True)
    with open(os.path.join(digest_dir, ".lock"), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(marker):
            return True
        # This interpreter without -I -S: with site-packages, so PyYAML for the model.
        done = subprocess.run([sys.executable] + list(renderer_argv), stdin=subprocess.DEVNULL, stdout=sys.stderr, check=False)
        return done.returncode == 0
