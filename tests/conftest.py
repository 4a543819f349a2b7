"""Import the collection as ansible_collections.gpufabric.pyramid and the twin as pyramid_twin."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = os.path.join(ROOT, ".collections", "ansible_collections", "gpufabric", "pyramid")
if not os.path.islink(LINK):
    os.makedirs(os.path.dirname(LINK), exist_ok=True)
    os.symlink("../../..", LINK)
for path in (os.path.join(ROOT, ".collections"), os.path.join(ROOT, "twin")):
    if path not in sys.path:
        sys.path.insert(0, path)
