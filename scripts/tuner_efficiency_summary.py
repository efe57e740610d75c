#!/usr/bin/env python3
# Summarises the tuner efficiency benchmark (scripts/tuner-efficiency) over families and seeds: per run the
# grid's best and each strategy's regret and cost, medians per family and overall against the goal, the noise
# floor from identical grid reruns, the seed floor (one seed's best on another seed's grid), and the default
# ladder's regret per start batch replayed on each grid.
import argparse, glob, json, os, re, statistics

from tuner_efficiency_report import on_clock, pct

GOAL_REGRET, GOAL_COST = 0.03, 0.25


def replay_rows(path, lr_tuner):
    """start batch -> regret of `lr_tuner`'s ladder from that start, from replay_efficiency's markdown table."""
    rows = {}
    for line in open(path) if os.path.exists(path) else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 9 and cells[0] == lr_tuner and cells[1].isdigit() and cells[5].endswith("%"):
            rows[int(cells[1])] = float(cells[5].rstrip("%")) / 100
    return rows


def grid_edges(report):
    """Where the judged best lies on the grid's own edges: 'largest batch', 'lowest rate', ... ('' inside)."""
    rates = sorted({t["learning_rate"] for t in report["grid_trials"]})
    batches = sorted({t["batch_size"] for t in report["grid_trials"]})
    best = report["judged_best"]
    edges = [name for name, hit in (("largest batch", best["batch_size"] == batches[-1]),
                                    ("lowest rate", best["learning_rate"] == rates[0]),
                                    ("highest rate", best["learning_rate"] == rates[-1])) if hit]
    return ", ".join(edges), rates, batches


def rate_regret(report, run):
    """Steps the run's own trial needed to the target over the grid's fewest at the same batch, minus one: the
    rate's share of the regret, free of timing (loss curves replay exactly). None without a choice or a grid
    trial reaching the target at that batch."""
    at_batch = [t["steps_to_target"] for t in report["grid_trials"]
                if t["reaches_target"] and t["batch_size"] == run.get("batch_size")]
    if not at_batch or not run.get("steps_to_target"):
        return None
    return run["steps_to_target"] / min(at_batch) - 1


def run_entry(report, replay):
    edges, rates, batches = grid_edges(report)
    entry = {"model": report["model"], "seed": report["seed"], "target_loss": report["target_loss"],
             "target_samples": report["target_samples"], "grid_best": {
                 k: report["judged_best"][k] for k in ("batch_size", "learning_rate", "steps_to_target", "seconds_on_clock")},
             "grid_best_at_edge": edges, "grid_rates": rates, "grid_batches": batches,
             "grid_cost_seconds": report["grid_cost_seconds"], "strategies": report["strategies"],
             "ladder_regret_by_start_batch": {str(k): v for k, v in sorted(replay.items())},
             # every run of every strategy: its regret on the judge's clock and its rate's share, free of timing
             "run_regrets": [{"strategy": r["strategy"], "repeat": r["repeat"], "batch_size": r.get("batch_size"),
                              "learning_rate": r.get("learning_rate"), "judged_regret": r.get("judged_regret"),
                              "rate_regret": rate_regret(report, r)} for r in report["runs"]]}
    grids = [r for r in report["runs"] if r["strategy"] == "grid"]
    if len(grids) > 1:  # identical reruns: their own-clock times and costs differ by the machine's noise alone
        times = [g["seconds_to_target"] for g in grids]
        costs = [g["cost_seconds"] for g in grids]
        entry["noise_floor"] = {"grid_runs": len(grids), "best_seconds_own_clock": times, "cost_seconds": costs,
                                "best_time_spread": max(times) / min(times) - 1, "cost_spread": max(costs) / min(costs) - 1}
    return entry


def judged_grid(report):
    """(batch, rate) -> seconds to the target on the report's judge's clock, for the grid trials that reached it."""
    clock = {int(b): t for b, t in report["clock_step_seconds"].items()}
    return {(t["batch_size"], t["learning_rate"]): t["seconds_on_clock"] for t in on_clock(report["grid_trials"], clock)}


def seed_floor(reports):
    """The grid's best at one seed, judged on another seed's grid of the same family (its own target and clock):
    what the exhaustive search's answer loses to a new seed (init and data order), None where it never got there."""
    floor = []
    for a in reports:
        for b in reports:
            if a is b or a["model"] != b["model"]:
                continue
            best = a["judged_best"]
            there = judged_grid(b)
            seconds = there.get((best["batch_size"], best["learning_rate"]))
            floor.append({"model": a["model"], "from_seed": a["seed"], "to_seed": b["seed"],
                          "batch_size": best["batch_size"], "learning_rate": best["learning_rate"],
                          "regret": seconds / min(there.values()) - 1 if seconds else None})
    return floor


def floor_median(floor):
    """Median regret over the transfers, one that never reached the target counting as the worst."""
    values = sorted(f["regret"] if f["regret"] is not None else float("inf") for f in floor)
    return statistics.median(values) if values else None


def medians(entries, strategy):
    picked = [s for e in entries for s in e["strategies"] if s["strategy"] == strategy]
    regrets = [s["judged_regret_median"] for s in picked if s["judged_regret_median"] is not None]
    rate = [r["rate_regret"] for e in entries for r in e["run_regrets"]
            if r["strategy"] == strategy and r["rate_regret"] is not None]
    shares = [s["cost_share_median"] for s in picked]
    if not picked:
        return None
    regret = statistics.median(regrets) if len(regrets) == len(picked) else None
    share = statistics.median(shares)
    return {"runs": len(picked), "regret_median": regret, "regret_max": max(regrets) if regrets else None,
            "cost_share_median": share, "rate_regret_median": statistics.median(rate) if rate else None,
            "meets_goal": regret is not None and regret <= GOAL_REGRET and share <= GOAL_COST}


def markdown(doc):
    e0 = doc["runs"][0]
    out = ["# Tuner efficiency: time-to-loss over tiny families and seeds", "",
           f"Reproduce: `{doc['command']}`; {doc['date']}, commit {doc['commit']}, {doc['machine']}. Per run detail: "
           "reports/tuner-efficiency/MODEL-sSEED.md (every run, the grid's seconds to the target per batch and rate) "
           "and MODEL-sSEED-replay.md.", "",
           f"Objective: seconds to reach a target loss (the reference config's score, batch 8, lr 3e-3, after "
           f"{e0['target_samples']} samples; every trial trains on {e0['target_samples']} samples). Ground truth: the "
           f"exhaustive grid over batch {e0['grid_batches'][0]}..{e0['grid_batches'][-1]} and rates "
           + ", ".join(f"{r:.0e}" for r in e0["grid_rates"]) + " (past both ends of the strategies' list "
           "3e-4..3e-2 and batch range 1..32), judged on one clock (each batch's median step time over the grid's "
           "and its reruns' throughput trials). Goal: regret <= 3% at <= 25% of the grid's trial time, on the medians.", "",
           "| family | seed | target loss | grid best (batch, lr, steps) | at the grid's edge | strategy | choice per run "
           "| regret (median) | cost / grid (median) | goal |", "|---|---|---|---|---|---|---|---|---|---|"]
    for e in doc["runs"]:
        b = e["grid_best"]
        for s in e["strategies"]:
            if s["strategy"] == "grid":
                continue
            choices = ", ".join(f"{x} @ {lr:.2e}" if x else "none" for x, lr in s["choices"])
            out.append(f"| {e['model']} | {e['seed']} | {e['target_loss']:.4f} | {b['batch_size']}, "
                       f"{b['learning_rate']:.0e}, {b['steps_to_target']} | {e['grid_best_at_edge'] or 'no'} | "
                       f"{s['strategy']} | {choices} | {pct(s['judged_regret_median'])} | "
                       f"{100 * s['cost_share_median']:.0f}% | {'yes' if s['meets_goal'] else 'no'} |")
    out += ["", "Medians over the runs (each run's own median over its repeats first):", "",
            "| strategy | over | runs | regret (median) | regret (max) | cost / grid (median) | goal on the medians "
            "| rate regret at its batch (median over every run) |", "|---|---|---|---|---|---|---|---|"]
    for m in doc["medians"]:
        out.append(f"| {m['strategy']} | {m['over']} | {m['runs']} | {pct(m['regret_median'])} | {pct(m['regret_max'])} "
                   f"| {100 * m['cost_share_median']:.0f}% | {'yes' if m['meets_goal'] else 'no'} "
                   f"| {pct(m['rate_regret_median'])} |")
    out += ["", "Rate regret at its batch: the steps the strategy's own trial needed to reach the target over the "
            "fewest any grid rate needed at the same batch, minus one. Loss curves replay exactly, so it is the "
            "rate's share of the regret, free of timing; a rate between the grid's can be below zero."]
    starts = sorted({int(k) for e in doc["runs"] for k in e["ladder_regret_by_start_batch"]})
    out += ["", f"Regret of the default ladder ({doc['lr_tuner']}) by the batch it starts from, replayed on each "
            "run's recorded grid (the strategies' own rate list, the grid's curves interpolated between its rates; its batch "
            "range; no throughput stage, so the start is forced):", "",
            "| family | seed | " + " | ".join(f"start {s}" for s in starts) + " |", "|---|---|" + "---|" * len(starts)]
    for e in doc["runs"]:
        row = e["ladder_regret_by_start_batch"]
        out.append(f"| {e['model']} | {e['seed']} | " + " | ".join(pct(row.get(str(s))) for s in starts) + " |")
    out.append("| median | | " + " | ".join(pct(statistics.median(v)) if (v := [e["ladder_regret_by_start_batch"][str(s)]
               for e in doc["runs"] if str(s) in e["ladder_regret_by_start_batch"]]) else "–" for s in starts) + " |")
    noise = [e for e in doc["runs"] if "noise_floor" in e]
    out += ["", "Noise floor (identical grid reruns, same binary, seeds and data; loss curves replay exactly, so only "
            "timing differs): "]
    for e in noise:
        n = e["noise_floor"]
        out[-1] += (f"{e['model']} seed {e['seed']}, {n['grid_runs']} runs: the best's time on its own clock "
                    + ", ".join(f"{t:.3f} s" for t in n["best_seconds_own_clock"])
                    + f" ({100 * n['best_time_spread']:.1f}% apart), the grid's trial time "
                    + ", ".join(f"{c:.0f} s" for c in n["cost_seconds"]) + f" ({100 * n['cost_spread']:.1f}% apart). ")
    out[-1] += ("Regret judged on one clock is free of it; a cost share carries it (a share of 25% reads 25% +- "
                "half that spread).")
    grids = [r for e in doc["runs"] for r in e["run_regrets"] if r["strategy"] == "grid" and r["judged_regret"] is not None]
    if grids:
        worst = max(grids, key=lambda r: r["judged_regret"])
        out += ["", f"Timing floor: the grid's own choice (on its own clock: each batch's median step time over its "
                f"trials) judged on the judge's clock: median {pct(statistics.median(r['judged_regret'] for r in grids))}, "
                f"max {pct(worst['judged_regret'])} over {len(grids)} grid runs. The exhaustive search misses by this "
                "much when its batches' step times were measured minutes apart: the VM's speed drifts between minutes "
                "by more than batch sizes that tie differ, and only the judge's round-robin clock averages it out."]
    floor = doc["seed_floor"]
    if floor:
        out += ["", "Seed floor: the grid's best at one seed (an exhaustive search's answer), judged on the same "
                "family's grid at the other seed (another init and data order; its own target and clock). Regrets at one "
                "seed smaller than this are within what the job's seed alone changes.", "",
                "| family | best at seed | config | its regret at seed |", "|---|---|---|---|"]
        for f in floor:
            out.append(f"| {f['model']} | {f['from_seed']} | {f['batch_size']} @ {f['learning_rate']:.0e} | "
                       f"{f['to_seed']}: {pct(f['regret']) if f['regret'] is not None else 'never reached the target'} |")
        out.append(f"| median | | | {pct(doc['seed_floor_median']) if doc['seed_floor_median'] is not None else 'never'} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reports", required=True, help="folder of the per-run MODEL-sSEED.json and -replay.md files")
    ap.add_argument("--out", required=True, help="path without extension: writes .md and .json")
    a = ap.parse_args()
    entries, lr_tuner = [], "lr_sweep"
    for path in sorted(glob.glob(os.path.join(a.reports, "*-s[0-9]*.json"))):
        report = json.load(open(path))
        default = next((s for s in report["strategies"] if s["strategy"] == "default"), None)
        lr_tuner = default["lr_tuner"] if default else lr_tuner
        entries.append((report, run_entry(report, replay_rows(re.sub(r"\.json$", "-replay.md", path), lr_tuner))))
    reports = [r for r, _ in entries]
    runs = [e for _, e in entries]
    med = []
    for strategy in dict.fromkeys(s["strategy"] for e in runs for s in e["strategies"] if s["strategy"] != "grid"):
        for model in dict.fromkeys(e["model"] for e in runs):
            m = medians([e for e in runs if e["model"] == model], strategy)
            if m: med.append(dict(m, strategy=strategy, over=model))
        med.append(dict(medians(runs, strategy), strategy=strategy, over="all families and seeds"))
    doc = {"schema": "tune-tuner-efficiency-summary", "schema_version": 2, "command": reports[0]["command"],
           "date": reports[-1]["date"], "commit": reports[0]["machine"]["commit"],
           "machine": f"{reports[0]['machine']['cpu']} ({reports[0]['machine']['cores']} cores)",
           "lr_tuner": lr_tuner, "runs": runs, "medians": med, "seed_floor": seed_floor(reports)}
    floor = floor_median(doc["seed_floor"])
    doc["seed_floor_median"] = floor if floor != float("inf") else None  # None: most transfers never reached it
    with open(a.out + ".json", "w") as f:
        json.dump(doc, f, indent=2)
    with open(a.out + ".md", "w") as f:
        f.write(markdown(doc))
    print(markdown(doc))


if __name__ == "__main__":
    main()
