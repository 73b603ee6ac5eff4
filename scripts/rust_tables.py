"""What the table scripts share: the cargo registry's files, and Rust char literals."""

import glob
import os
import re
import sys


def registry_file(pattern, what):
    """The newest file of the local cargo registry matching `pattern`."""
    def version(path):
        # The crate's folder is `name-X.Y.Z`: newest by number, not by text.
        m = re.search(r'-(\d+)\.(\d+)\.(\d+)/', path)
        return tuple(int(x) for x in m.groups()) if m else ()

    found = sorted(glob.glob('%s/.cargo/registry/src/*/%s' % (os.path.expanduser('~'), pattern)),
                   key=version)
    if not found:
        sys.exit('%s is not in the cargo registry (cargo fetch first)' % what)
    return found[-1]


CHAR = r"'(?:\\u\{[0-9a-fA-F]+\}|\\.|[^'\\])'"
PAIR = re.compile(r"\((%s),\s*(%s)\)" % (CHAR, CHAR))


def char_value(tok):
    """The code point of a Rust char literal."""
    tok = tok[1:-1]
    if tok.startswith('\\u{'):
        return int(tok[3:-1], 16)
    escapes = {'\\t': 9, '\\n': 10, '\\r': 13, "\\'": 39, '\\\\': 92, '\\0': 0, '\\"': 34}
    if tok in escapes:
        return escapes[tok]
    assert len(tok) == 1, tok
    return ord(tok)
