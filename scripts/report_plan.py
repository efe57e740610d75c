#!/usr/bin/env python3
# The searches of `scripts/report --measure`: reads configs/report.yaml and prints "model seq_len budget" per
# line for a set name or a comma-separated list of models (each model at the seq_len of the set that lists it).
import sys

import yaml


def plan(config, selection):
    sets = config.get("sets") or {}
    budgets = config.get("budgets") or {}
    if selection in sets:
        chosen = [(m, sets[selection]) for m in sets[selection]["models"]]
    else:
        owner = {m: s for s in sets.values() for m in s["models"]}
        unknown = [m for m in selection.split(",") if m not in owner]
        if unknown:
            raise SystemExit(f"scripts/report: --models '{selection}': {', '.join(unknown)} in no set of "
                             f"configs/report.yaml (sets: {', '.join(sets)}; or models listed in them)")
        chosen = [(m, owner[m]) for m in selection.split(",")]
    return [(m, s["seq_len"], budgets.get(m, s["budget"])) for m, s in chosen]


def main():
    path, selection = sys.argv[1], sys.argv[2]
    try:
        config = yaml.safe_load(open(path))
    except (OSError, yaml.YAMLError) as e:
        raise SystemExit(f"scripts/report: {path}: {e}")
    for model, seq_len, budget in plan(config, selection):
        print(model, seq_len, budget)


if __name__ == "__main__":
    main()
