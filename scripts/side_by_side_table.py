#!/usr/bin/env python3
# The side-by-side table of scripts/side-by-side from its store: per model x precision x backend, the fixed
# workload's step time, samples/s, compile parts, break-even steps against both eager baselines, loss agreement.
"""usage: side_by_side_table.py STORE.db [--tune PATH]  (markdown on stdout)

The store is read through `tune export --json` (PATH: the tune binary, default build/tune).

Break-even of a compiled backend against a baseline at the same batch: the steps N after which
N * t_compiled + overhead < N * t_baseline, i.e. overhead / (t_baseline - t_compiled); "never" when not faster.
Loss: the learning-rate trial's loss after its last step (same weights, batches and rate for every backend);
dropout draws differ between C++ and Python and between eager and compiled, so agreement is within a tolerance.
"""
import argparse

from tune_export import BUILT_TUNE, export_database

BACKENDS = ["eager", "jit", "inductor", "hf-eager"]
LOSS_TOLERANCE = 0.02  # relative: dropout (p=0.1) draws differ across runtimes; a wrong step differs by far more


def load(doc):
    """(model, precision, backend) -> purpose -> (status, result) of the seq-128 studies, trials in id order."""
    cells = {}
    for study in doc["studies"]:
        if study["seq_len"] != 128:
            continue
        for t in study["trials"]:
            cell = cells.setdefault((study["model"], study["precision"], study["backend"]), {})
            cell[t["spec"]["purpose"]] = (t["result"]["status"], t["result"])
    return cells


def break_even(overhead, t_base, t):
    if t <= 0 or t_base <= 0:
        return "-"
    return "never" if t >= t_base else "%.0f" % (overhead / (t_base - t))


def row(cells, model, precision, backend):
    cell = cells.get((model, precision, backend), {})
    status, r = cell.get("throughput", ("missing", {}))
    if status != "ok":
        return "| %s | %s | %s | %s: %s |" % (model, precision, backend, status, r.get("error_message", "")[:120].replace("|", "/"))
    t = r["step_time_median"]
    base = {b: cells.get((model, precision, b), {}).get("throughput", ("", {}))[1].get("step_time_median", 0)
            for b in ("eager", "hf-eager")}
    parts = r.get("compile_parts") or {}
    parts_text = " + ".join("%s %.0f" % (k.replace("_", " "), v) for k, v in parts.items()) if parts else ""
    compiled = backend in ("jit", "inductor")
    lr_status, lr = cell.get("learning_rate", ("missing", {}))
    losses = lr.get("losses") if lr_status == "ok" and lr.get("losses") else [float("nan")]
    first, loss = losses[0], losses[-1]
    ref = cells.get((model, precision, "eager"), {}).get("learning_rate", ("", {}))[1].get("losses", [float("nan")])[-1]
    agree = abs(loss - ref) <= LOSS_TOLERANCE * abs(ref)
    return "| %s | %s | %s | %.2f (%.2f-%.2f) | %.2f | %s | %s | %s | %s | %.2f | %.3f | %.4f (%+.2f%%) %s |" % (
        model, precision, backend, t, r["step_time_ci_low"], r["step_time_ci_high"], r["samples_per_second"],
        "%.1f%s" % (r["compile_seconds"], " (" + parts_text + ")" if parts_text else "") if compiled else "-",
        "%.1f" % r["compile_overhead_seconds"],
        break_even(r["compile_overhead_seconds"], base["eager"], t) if compiled else "-",
        break_even(r["compile_overhead_seconds"], base["hf-eager"], t) if backend == "inductor" else "-",
        r["peak_memory_bytes"] / 2**30, first, loss, 100 * (loss - ref) / ref, "ok" if agree else "DIFFERS")


def main(path, tune):
    cells = load(export_database(tune, path))
    models = sorted({k[0] for k in cells})
    print("| model | precision | backend | s/step (95% CI) | samples/s | compile s (parts) | overhead s | "
          "break-even vs C++ eager | vs HF eager | peak GiB | lr trial: first loss | last loss (vs C++ eager) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for model in models:
        for precision in ("fp32", "bf16", "fp16"):
            for backend in BACKENDS:
                if (model, precision, backend) in cells:
                    print(row(cells, model, precision, backend))
    print("\nLoss tolerance: %.0f%% of C++ eager's loss at the same precision (dropout draws differ)." % (100 * LOSS_TOLERANCE))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="the side-by-side table of a tune store (markdown on stdout)")
    ap.add_argument("store")
    ap.add_argument("--tune", default=BUILT_TUNE, help="the tune binary (default: build/tune)")
    a = ap.parse_args()
    main(a.store, a.tune)
