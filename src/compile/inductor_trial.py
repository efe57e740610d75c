# Python trial worker for the `inductor` backend (torch.compile of Hugging Face's own module) and the `hf-eager`
# reference (the same HF module, not compiled): TrialSpec JSON and tune's dumped batches in, TrialResult JSON out.
"""Speaks the protocol of `tune trial --spec spec.json --out result.json` (src/trial/trial_spec.h, trial_result.h).

tune's C++ side starts it (src/trial/python_trial.cpp) after `tune trial --dump-batches` has written the exact
batches the C++ backends train on, so losses are comparable across backends. Timing follows trial_runner.cpp:
warm-up steps timed apart, then steady-state steps until the median's 95% order-statistic CI is within
ci_halfwidth or a step/time cap is reached. Every failure becomes a result (compile_error with its stage, oom, ...).
Compatible with torch >= 2.4 and transformers 4.4x / 5.x; torch and transformers are imported only once the
Inductor cache folder is set, so a cold cache is really cold.
"""
import argparse
import json
import math
import os
import resource
import shutil
import sys
import time
import traceback

COMPILE_MODES = ("default", "max-autotune-no-cudagraphs", "reduce-overhead", "max-autotune")
HF_ATTENTION = {"math": "eager", "sdpa": "sdpa"}


class TrialFailure(Exception):
    """A trial's own failure: becomes a result with this status, stage and message."""

    def __init__(self, status, stage, message):
        super().__init__(message)
        self.status, self.stage, self.message = status, stage, message


# ---- statistics: the same rules as src/trial/step_statistics.cpp (a test checks both give equal bounds) ----

def binomial_half_cdf(n, k):
    """P(X <= k) for X ~ Binomial(n, 1/2), summed in log space as the C++ does."""
    log_n = math.lgamma(n + 1.0) - n * math.log(2.0)
    return sum(math.exp(log_n - math.lgamma(i + 1.0) - math.lgamma(n - i + 1.0)) for i in range(k + 1))


def lower_order_index(n):
    """Largest 0-based j with P(X <= j) <= 2.5%; -1 when none exists (n < 6)."""
    j = -1
    while j + 1 < n // 2 and binomial_half_cdf(n, j + 1) <= 0.025:
        j += 1
    return j


def step_statistics(times):
    """Median, its 95% CI by order statistics (min/max under 6 samples), CV, like step_statistics()."""
    xs = sorted(times)
    n = len(xs)
    if n == 0:
        return {"samples": 0, "median": 0.0, "ci_low": 0.0, "ci_high": 0.0, "has_ci": False, "cv": 0.0}
    median = xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])
    j = lower_order_index(n)
    cv = 0.0
    if n >= 2:
        mean = sum(xs) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
        cv = sd / mean if mean > 0 else 0.0
    return {"samples": n, "median": median, "ci_low": xs[j] if j >= 0 else xs[0],
            "ci_high": xs[n - 1 - j] if j >= 0 else xs[-1], "has_ci": j >= 0, "cv": cv}


def median_ci_within(stats, halfwidth):
    if not stats["has_ci"] or stats["median"] <= 0:
        return False
    return stats["median"] * (1 - halfwidth) <= stats["ci_low"] and stats["ci_high"] <= stats["median"] * (1 + halfwidth)


def tail_mean(losses):
    """Mean of the last quarter of the curve (at least 2 steps), as trial_runner.cpp scores lr trials."""
    n = max(2, len(losses) // 4)
    tail = losses[-n:]
    return sum(tail) / len(tail)


# ---- environment: cache, imports, threads, memory ----

def prepare_inductor_cache(out_dir):
    """A fresh cache folder per trial (cold compile), unless TUNE_INDUCTOR_CACHE_DIR names a shared one."""
    shared = os.environ.get("TUNE_INDUCTOR_CACHE_DIR", "")
    if shared:
        cache, state = shared, "shared cache " + shared + " (TUNE_INDUCTOR_CACHE_DIR; may be warm)"
    else:
        cache, state = os.path.join(out_dir, "inductor-cache"), "cold (fresh TORCHINDUCTOR_CACHE_DIR in the trial folder)"
        shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache, exist_ok=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
    return cache, state, not shared


def import_torch_stack():
    try:
        import torch
        import transformers
    except Exception as e:  # ImportError, or a broken install failing at import time
        raise TrialFailure("compile_error", "import",
                           "cannot import torch and transformers with %s: %s: %s (install them with scripts/setup, "
                           "or point TUNE_PYTHON at a python that has them)" % (sys.executable, type(e).__name__, e))
    return torch, transformers


def set_threads(torch, threads):
    if threads > 0:
        torch.set_num_threads(threads)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass  # already sized by earlier parallel work: keep it


def cap_memory(torch, spec):
    """As device_memory.cpp: CPU caps address-space growth (RLIMIT_AS), CUDA the allocator's fraction."""
    limit = spec.get("memory_limit_bytes", 0)
    if spec["device"].startswith("cuda"):
        torch.cuda.reset_peak_memory_stats(torch.device(spec["device"]))
        if limit > 0:
            total = torch.cuda.get_device_properties(torch.device(spec["device"])).total_memory
            torch.cuda.set_per_process_memory_fraction(min(1.0, limit / total), torch.device(spec["device"]))
        return
    if limit > 0:
        with open("/proc/self/statm") as f:
            mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (mapped + limit, mapped + limit))


def peak_memory_bytes(torch, device):
    if device.startswith("cuda"):
        return int(torch.cuda.max_memory_allocated(torch.device(device)))
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # Linux reports KiB


# ---- model and batches ----

def hf_model_class(transformers, model):
    cls = getattr(transformers, model["hf_class"], None)
    if cls is None:
        raise TrialFailure("invalid", "build_model", "hf_class '%s' of %s is not a class of transformers %s" %
                           (model["hf_class"], model.get("source_path", model["name"]), transformers.__version__))
    return cls


def build_model(torch, transformers, spec):
    """HF's own module for the tested model's config values: seeded random init, or a checkpoint folder."""
    model = spec["model"]
    cls = hf_model_class(transformers, model)
    config = cls.config_class(**model["hf"], attn_implementation=HF_ATTENTION[spec["attention"]])
    weights = spec.get("weights_dir", "")
    if not weights:
        torch.manual_seed(spec["seed"])
        module = cls(config)
    else:
        module, info = cls.from_pretrained(weights, config=config, dtype=torch.float32, output_loading_info=True)
        bad = sorted(info["missing_keys"]) + [str(k) for k in info.get("mismatched_keys", [])]
        if bad:
            raise TrialFailure("invalid", "build_model", "checkpoint %s lacks or mis-shapes: %s" % (weights, ", ".join(bad)))
    return module.to(torch.device(spec["device"])).train()


def load_batches(torch, path, module, device):
    """tune's dumped batches (a tuple: list of {field: tensor}, flops per step, data description), on the device,
    keeping the fields the HF forward takes (DistilBERT has no token_type_ids)."""
    import inspect
    from torch.jit._pickle import restore_type_tag  # torch::pickle_save tags typed lists and dicts with it
    with torch.serialization.safe_globals([restore_type_tag]):
        batches, flops, description = torch.load(path, weights_only=True)
    accepted = set(inspect.signature(module.forward).parameters)
    extra = {"use_cache": False} if "use_cache" in accepted else {}
    moved = [dict({k: v.to(device) for k, v in b.items() if k in accepted}, **extra) for b in batches]
    if not moved:
        raise TrialFailure("invalid", "load_batches", "no batches in " + path)
    return moved, float(flops), str(description)


# ---- the training step ----

class TrainStep:
    """zero grads, forward (autocast for bf16/fp16) with HF's own loss, backward, AdamW; fp16 goes through a
    GradScaler. `inductor`: the module under torch.compile and, for stock AdamW, the optimizer step compiled
    too (Inductor generates the update); the fused AdamW is already one kernel and stays as it is."""

    def __init__(self, torch, module, spec):
        self.torch = torch
        fused = spec["optimizer"] == "fused"
        self.optimizer = torch.optim.AdamW(module.parameters(), lr=spec["learning_rate"], weight_decay=0.01,
                                           fused=True if fused else None)
        self.device_type = torch.device(spec["device"]).type
        self.dtype = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[spec["precision"]]
        self.scaler = torch.amp.GradScaler(self.device_type) if spec["precision"] == "fp16" else None
        self.forward, self.update = module, self.optimizer.step
        self.optimizer_compiled = False
        if spec["backend"] == "inductor":
            self.compile(module, spec, fused)

    def compile(self, module, spec, fused):
        try:
            self.forward = self.torch.compile(module, mode=spec.get("compile_mode", "default"),
                                              dynamic=bool(spec.get("dynamic_shapes", False)))
            if not fused and self.scaler is None:
                self.update = self.torch.compile(self.optimizer.step)
                self.optimizer_compiled = True
        except Exception as e:  # torch.compile checks its arguments (mode, backend) eagerly
            raise TrialFailure("compile_error", "compile", "%s: %s" % (type(e).__name__, e))

    def __call__(self, batch):
        self.optimizer.zero_grad(set_to_none=True)
        with self.torch.autocast(self.device_type, dtype=self.dtype or self.torch.float32, enabled=self.dtype is not None):
            loss = self.forward(**batch).loss
        if self.scaler is None:
            loss.backward()
            self.update()
        else:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        return loss.detach()


class StepClock:
    """As step_clock.cpp: CPU wall clock per step; CUDA events read once per block of 5 steps."""

    def __init__(self, torch, device):
        self.torch, self.cuda, self.marks = torch, device.startswith("cuda"), []
        self.block_steps = 5 if self.cuda else 1

    def mark(self):
        if self.cuda:
            event = self.torch.cuda.Event(enable_timing=True)
            event.record()
            self.marks.append(event)
        else:
            self.marks.append(time.perf_counter())

    def collect(self):
        marks, self.marks = self.marks, []
        if self.cuda:
            marks[-1].synchronize()
            return [a.elapsed_time(b) / 1000.0 for a, b in zip(marks, marks[1:])]
        return [b - a for a, b in zip(marks, marks[1:])]


def is_out_of_memory(torch, e):
    if isinstance(e, MemoryError) or isinstance(e, getattr(torch, "OutOfMemoryError", ())):
        return True
    text = str(e)
    return any(s in text for s in ("out of memory", "can't allocate", "not enough memory", "Cannot allocate memory"))


def compile_stage(e):
    """Which compile stage an exception comes from, by the types along its cause chain."""
    names, seen = [], e
    while seen is not None and len(names) < 8:
        names.append(type(seen).__module__ + "." + type(seen).__name__ + " " + str(seen)[:300])
        seen = getattr(seen, "inner_exception", None) or seen.__cause__
    text = " | ".join(names)
    if "CppCompileError" in text or "C++ compile error" in text:
        return "cpp_compile"
    if "triton" in text.lower():
        return "triton_compile"
    if any(s in text for s in ("BackendCompilerFailed", "InductorError", "LoweringException", "torch._inductor")):
        return "inductor"
    return "trace"


def step_failure(torch, e):
    message = "%s: %s" % (type(e).__name__, str(e)[:4000])
    if is_out_of_memory(torch, e):
        return TrialFailure("oom", "step", message)
    module = type(e).__module__ or ""
    if module.startswith(("torch._dynamo", "torch._inductor", "torch._functorch")) or "Compile" in type(e).__name__:
        return TrialFailure("compile_error", compile_stage(e), message)
    return TrialFailure("crashed", "step", message)


class StepLoop:
    """Runs steps over the batch pool in order, reading losses once a block of steps is timed."""

    def __init__(self, torch, step, batches, device, result):
        self.torch, self.step, self.batches, self.result = torch, step, batches, result
        self.clock, self.done = StepClock(torch, device), 0

    def run(self, n):
        losses = []
        try:
            self.clock.mark()
            for _ in range(n):
                losses.append(self.step(self.batches[self.done % len(self.batches)]))
                self.done += 1
                self.clock.mark()
            times = self.clock.collect()
        except TrialFailure:
            raise
        except Exception as e:
            raise step_failure(self.torch, e)
        for loss in losses:
            self.record_loss(float(loss.item()))
        return times

    def record_loss(self, value):
        # A non-finite loss is named in the message, not kept in the curve: JSON has no NaN (it would be null).
        if not math.isfinite(value):
            raise TrialFailure("diverged", "step", "loss became %s at step %d" % (value, len(self.result["losses"]) + 1))
        self.result["losses"].append(value)


# ---- compile accounting: torch's own timers (torch._dynamo.utils.compilation_time_metrics) ----

def compile_timers():
    """Seconds per timed compile phase so far, and how many frames dynamo compiled."""
    try:
        from torch._dynamo.utils import compilation_time_metrics as metrics
    except ImportError:
        return {}, 0
    totals = {name: float(sum(times)) for name, times in metrics.items()}
    return totals, len(metrics.get("_compile.compile_inner", []))


def compile_parts(totals):
    """dynamo's bytecode trace, AOTAutograd + Inductor lowering/codegen, and the kernel compile (C++ by the system
    compiler on CPU, Triton on GPU: loading the generated module waits for it). Forward graphs are compiled inside
    dynamo's frame compile; the backward graph lazily at the first backward."""
    frames = totals.get("_compile.compile_inner", 0.0)
    user_compiler = totals.get("OutputGraph.call_user_compiler", 0.0)
    backward = totals.get("compile_fx.<locals>.bw_compiler", 0.0)
    backend = user_compiler + backward
    kernels = min(backend, totals.get("PyCodeCache.load_by_key_path", 0.0))
    return {"dynamo_trace": max(0.0, frames - user_compiler), "aot_inductor_codegen": max(0.0, backend - kernels),
            "kernel_compile": kernels, "total": frames + backward}


# ---- one trial: warm-up apart, steady state until the stopping rule (trial_runner.cpp's protocol) ----

def total_steps(spec):
    if spec["purpose"] == "learning_rate":
        return max(spec["train_steps"], spec["warmup_steps"] + 1)
    return spec["warmup_steps"] + spec["max_measure_steps"]


def steady_state_reached(spec, step_times):
    """Why timing may stop now (the CI is tight, or the time cap is reached); empty to go on."""
    if len(step_times) < spec["min_measure_steps"]:
        return ""
    stats = step_statistics(step_times)
    if median_ci_within(stats, spec["ci_halfwidth"]):
        return "median's 95%% CI within +-%.0f%% after %d steps" % (100 * spec["ci_halfwidth"], stats["samples"])
    if sum(step_times) >= spec["measure_seconds"]:
        return "time cap %.0f s after %d steps (CI %.3f-%.3f s)" % (spec["measure_seconds"], stats["samples"],
                                                                   stats["ci_low"], stats["ci_high"])
    return ""


def run_warmup(loop, spec, result):
    """The first K steps one at a time, so the compile time spent inside each is known (torch compiles lazily,
    in the first call): compile_seconds is that time, the first-step figures are the rest of those steps."""
    walls, compiles = [], []
    for _ in range(spec["warmup_steps"]):
        before = compile_parts(compile_timers()[0])["total"]
        walls += loop.run(1)
        compiles.append(min(walls[-1], compile_parts(compile_timers()[0])["total"] - before))
        if len(walls) == 1:
            result["_frames_after_first_step"] = compile_timers()[1]
    result["compile_seconds"] = sum(compiles)
    if walls:
        result["first_step_seconds"] = max(0.0, walls[0] - compiles[0])
        result["first_steps_seconds"] = max(0.0, sum(walls) - sum(compiles))
        result["later_warmup_seconds"] = max(0.0, result["first_steps_seconds"] - result["first_step_seconds"])


def run_steps(loop, spec, result):
    run_warmup(loop, spec, result)
    steps = total_steps(spec)
    while loop.done < steps:
        result["step_times"] += loop.run(min(loop.clock.block_steps, steps - loop.done))
        if spec["purpose"] != "throughput":
            continue
        result["steady_state_stop"] = steady_state_reached(spec, result["step_times"])
        if result["steady_state_stop"]:
            return
    result["steady_state_stop"] = "step cap: %d steps" % len(result["step_times"])


def summarise(spec, result):
    stats = step_statistics(result["step_times"])
    result.update(step_time_median=stats["median"], step_time_ci_low=stats["ci_low"],
                  step_time_ci_high=stats["ci_high"], step_time_cv=stats["cv"])
    if stats["median"] > 0:
        result["samples_per_second"] = spec["batch_size"] / stats["median"]
        result["tokens_per_second"] = result["samples_per_second"] * spec["seq_len"]
    result["compile_overhead_seconds"] = max(
        0.0, result["compile_seconds"] + result["first_steps_seconds"] - spec["warmup_steps"] * stats["median"])
    if result["losses"]:
        result["score_loss"] = tail_mean(result["losses"])


def counted(messages):
    """Repeated messages once, with their count, as warning_capture.cpp keeps libtorch's warnings."""
    counts = {}
    for m in messages:
        counts[m] = counts.get(m, 0) + 1
    return [m + (" (x%d)" % n if n > 1 else "") for m, n in counts.items()]


def compile_account(torch, transformers, spec, step, result, cache_state):
    """compile_info and compile_parts for the result: what was compiled, its phases, graphs, breaks, recompiles."""
    versions = "torch %s, transformers %s" % (torch.__version__, transformers.__version__)
    if spec["backend"] != "inductor":
        return "Hugging Face %s eager in Python (no compile); %s" % (spec["model"]["hf_class"], versions)
    from torch._dynamo.utils import counters
    totals, frames = compile_timers()
    parts = compile_parts(totals)
    result["compile_parts"] = {k: v for k, v in parts.items() if k != "total"}
    recompiles = frames - result.pop("_frames_after_first_step", frames)
    breaks = sum(counters["graph_break"].values())
    result["warnings"] += ["graph break: %s (x%d)" % (reason.splitlines()[0], n) for reason, n in
                           counters["graph_break"].items()]
    return ("torch.compile(mode=%s, dynamic=%s) of %s, optimizer step %s; %s; graphs %d, graph breaks %d, frames "
            "compiled %d, recompiles after the first step %d; dynamo trace %.2f s, AOT+Inductor codegen %.2f s, "
            "kernel compile %.2f s; Inductor cache %s; compile threads %s" % (
                spec.get("compile_mode", "default"), bool(spec.get("dynamic_shapes", False)),
                spec["model"]["hf_class"], "compiled" if step.optimizer_compiled else "eager (" + spec["optimizer"] +
                ("" if spec["precision"] != "fp16" else ", GradScaler") + ")", versions,
                counters["stats"]["unique_graphs"], breaks, frames, recompiles, parts["dynamo_trace"],
                parts["aot_inductor_codegen"], parts["kernel_compile"], cache_state,
                os.environ.get("TORCHINDUCTOR_COMPILE_THREADS", "default")))


def build_stage(torch, transformers, spec):
    try:
        return build_model(torch, transformers, spec)
    except TrialFailure:
        raise
    except Exception as e:
        if is_out_of_memory(torch, e):
            raise TrialFailure("oom", "build_model", str(e)[:4000])
        raise TrialFailure("compile_error", "build_model", "cannot build Hugging Face's %s: %s: %s" %
                           (spec["model"]["hf_class"], type(e).__name__, str(e)[:4000]))


def measure(torch, transformers, spec, batches_path, result, cache_state):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = build_stage(torch, transformers, spec)
        result["parameter_count"] = sum(p.numel() for p in module.parameters())
        try:
            batches, result["flops_per_step"], data = load_batches(torch, batches_path, module, torch.device(spec["device"]))
        except Exception as e:  # missing file, unpickling error, wrong layout
            raise TrialFailure("invalid", "load_batches", "cannot read batches %s: %s: %s" % (batches_path, type(e).__name__, e))
        print("tune: data: %s (%d batches from %s)" % (data, len(batches), batches_path), file=sys.stderr)
        step = TrainStep(torch, module, spec)
        try:
            run_steps(StepLoop(torch, step, batches, spec["device"], result), spec, result)
        finally:
            result["warnings"] += counted(str(w.message).splitlines()[0] for w in caught if str(w.message))
    result["compile_info"] = compile_account(torch, transformers, spec, step, result, cache_state)
    result["status"] = "ok"
    summarise(spec, result)


def empty_result():
    result = {k: 0.0 for k in ("compile_seconds", "first_step_seconds", "later_warmup_seconds", "first_steps_seconds",
                               "compile_overhead_seconds", "step_time_median", "step_time_ci_low", "step_time_ci_high",
                               "step_time_cv", "samples_per_second", "tokens_per_second", "score_loss",
                               "flops_per_step")}
    result.update(status="crashed", error_stage="", error_message="", steady_state_stop="", step_times=[], losses=[],
                  warnings=[], compile_info="", compile_parts={}, peak_memory_bytes=0, parameter_count=0)
    return result


def run_trial(spec, batches_path, out_dir):
    """Never raises for the trial's own failure: it becomes the result's status, stage and message."""
    result, torch, cache, cold, state = empty_result(), None, None, False, ""
    try:
        if spec.get("backend") not in ("inductor", "hf-eager"):
            raise TrialFailure("invalid", "setup", "backend '%s': expected inductor or hf-eager" % spec.get("backend"))
        if spec["threads"] > 0:
            os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = str(spec["threads"])  # compile on the trial's cores
        if spec["backend"] == "inductor":
            cache, state, cold = prepare_inductor_cache(out_dir)
        torch, transformers = import_torch_stack()
        set_threads(torch, spec["threads"])
        cap_memory(torch, spec)
        measure(torch, transformers, spec, batches_path, result, state)
    except TrialFailure as f:
        result.update(status=f.status, error_stage=f.stage, error_message=f.message)
    except Exception as e:
        oom = torch is not None and is_out_of_memory(torch, e)
        result.update(status="oom" if oom else "crashed", error_stage="run", error_message=traceback.format_exc()[-4000:])
    finally:
        result.pop("_frames_after_first_step", None)
        result["peak_memory_bytes"] = peak_memory_bytes(torch, spec.get("device", "cpu")) if torch else 0
        if cold:
            shutil.rmtree(cache, ignore_errors=True)  # cold by construction; keeping it would only cost disk
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True, help="TrialSpec JSON (as tune writes into a trial folder)")
    parser.add_argument("--batches", required=True, help="batches dumped by `tune trial --dump-batches`")
    parser.add_argument("--out", required=True, help="TrialResult JSON to write")
    args = parser.parse_args(argv)
    try:
        with open(args.spec) as f:
            spec = json.load(f)
        result = run_trial(spec, args.batches, os.path.dirname(os.path.abspath(args.out)))
    except (OSError, ValueError, KeyError) as e:
        result = dict(empty_result(), status="invalid", error_stage="setup",
                      error_message="trial spec '%s' is not a valid spec: %s: %s" % (args.spec, type(e).__name__, e))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    detail = "" if result["status"] == "ok" else " (%s: %s)" % (result["error_stage"], result["error_message"][:500])
    print("tune: trial %s%s" % (result["status"], detail), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
