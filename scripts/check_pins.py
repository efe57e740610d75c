#!/usr/bin/env python3
# Whether the installed versions of PACKAGES equal their pins in a pip constraints file (scripts/setup installs
# the pinned ones otherwise). Exit 0: all match; 1: some missing or different (named on stderr).
"""usage: check_pins.py CONSTRAINTS_FILE PACKAGE [PACKAGE ...]"""
import sys
from importlib import metadata


def pins(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if "==" in line:
                name, version = line.split("==", 1)
                out[name.strip().lower().replace("_", "-")] = version.strip()
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    wanted, bad = pins(sys.argv[1]), []
    for package in sys.argv[2:]:
        key = package.lower().replace("_", "-")
        try:
            installed = metadata.version(package)
        except metadata.PackageNotFoundError:
            installed = None
        if installed is None or (key in wanted and installed != wanted[key]):
            bad.append(f"{package} {installed or 'missing'} (pinned: {wanted.get(key, 'any')})")
    if bad:
        print("setup: not as pinned: " + ", ".join(bad), file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
