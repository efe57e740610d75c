# The Python side of a trial for the backends with no C++ route: Hugging Face's own module run eagerly (hf-eager)
# or under torch.compile (inductor), stepped as the trial process asks over the worker protocol.
"""Serves the worker protocol of src/trial/python_trial.h (JSON lines on stdin and stdout).

The trial process (`tune trial`, src/trial/trial_runner.cpp) writes the exact batches the C++ backends train on,
starts this worker and keeps the measurement: it asks for blocks of steps and applies the stopping rule, the
statistics and the result's fields (src/trial/measurement.h). This worker builds the module, compiles it, runs the
steps it is asked for (timed on the device: CUDA events or the host clock), and says how long each step spent
compiling. Every failure is a reply with its status and stage (compile_error with the compile stage, oom, ...).
Compatible with torch >= 2.4 and transformers 4.4x / 5.x; torch and transformers are imported only once the
Inductor cache folder is set, so a cold cache is really cold.
"""
import argparse
import contextlib
import json
import math
import os
import resource
import shutil
import sys
import time
import traceback
import warnings

import compile_cache  # beside this file (sys.path[0] when run as a script)
import data_parallel
import step_observers

# The backends this worker runs: the registry's entries with the Python-worker route (src/trial/backend_registry.cpp;
# PythonWorkerBackends.* checks the two agree), and whether each puts HF's module under torch.compile.
BACKENDS = {"inductor": {"torch_compile": True}, "hf-eager": {"torch_compile": False}}
HF_ATTENTION = {"math": "eager", "sdpa": "sdpa"}
PROTOCOL = 3  # kWorkerProtocol in src/trial/python_trial.h (2: evaluate; 3: a step request's member, buckets)


def compiles(spec):
    """Whether the spec's backend compiles HF's module with torch.compile (its Inductor cache, compile account)."""
    return BACKENDS[spec["backend"]]["torch_compile"]


class TrialFailure(Exception):
    """A trial's own failure: becomes a result with this status, stage and message."""

    def __init__(self, status, stage, message):
        super().__init__(message)
        self.status, self.stage, self.message = status, stage, message


# ---- environment: cache, imports, threads, memory ----

def prepare_inductor_cache(out_dir, spec):
    """A fresh cache folder per trial (cold compile), unless TUNE_INDUCTOR_CACHE_DIR names a shared one or the spec
    names its study's cache for its shape (compile_cache_dir). A shared or study cache is checked first
    (compile_cache.py): one from another torch, Python or machine, or damaged, is emptied and said so. Returns the
    folder, its account for compile_info, whether it is the trial's own (cold by construction), why it was rebuilt
    (or None), and whether it starts empty (no artifacts loaded into it, nothing from an earlier compile)."""
    shared = os.environ.get("TUNE_INDUCTOR_CACHE_DIR", "")
    study = spec.get("compile_cache_dir", "")
    if spec.get("compile_artifacts"):
        shared, study = "", ""  # carried artifacts load into a fresh cache: a warm local one would hide what they hold
    if not (shared or study):
        cache = data_parallel.rank_cache_folder(os.path.join(out_dir, "inductor-cache"), spec)
        shutil.rmtree(cache, ignore_errors=True)
        os.makedirs(cache)
        point_inductor_at(cache)
        fresh = "fresh TORCHINDUCTOR_CACHE_DIR in the trial folder"
        carried = bool(spec.get("compile_artifacts"))
        return cache, fresh if carried else "cold (%s)" % fresh, True, None, not carried
    cache = data_parallel.rank_cache_folder(shared or study, spec)
    whose = "shared cache " + cache + " (TUNE_INDUCTOR_CACHE_DIR)" if shared else "the study's cache for this shape " + cache
    try:
        account, rebuilt = compile_cache.open_cache(cache, spec.get("device", "cpu"), tune_owned=not shared)
    except (ValueError, OSError) as e:
        raise TrialFailure("invalid", "setup", str(e))
    point_inductor_at(cache)
    return cache, whose + ": " + (account if rebuilt is None else "rebuilt, " + rebuilt), False, rebuilt, account == "empty"


def point_inductor_at(cache):
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")


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


def missing_base_keys(module, missing):
    """A head the checkpoint lacks is initialised, as in tune's own loader (models/hf_weights.h): only missing
    tensors of the base model (under base_model_prefix, or all of them when the class has no base attribute) fail."""
    prefix = module.base_model_prefix
    if not prefix or not hasattr(module, prefix):
        return list(missing)
    return [k for k in missing if k.startswith(prefix + ".")]


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
        bad = sorted(missing_base_keys(module, info["missing_keys"])) + [str(k) for k in info.get("mismatched_keys", [])]
        if bad:
            raise TrialFailure("invalid", "build_model", "checkpoint %s lacks or mis-shapes: %s" % (weights, ", ".join(bad)))
    return module.to(torch.device(spec["device"])).train()


def load_batches(torch, path, module, device):
    """The trial's batches (a list of {field: tensor}, src/trial/batch_dump.h) on the device, keeping the fields
    the HF forward takes (DistilBERT has no token_type_ids)."""
    import inspect
    from torch.jit._pickle import restore_type_tag  # torch::pickle_save tags typed lists and dicts with it
    with torch.serialization.safe_globals([restore_type_tag]):
        batches = torch.load(path, weights_only=True)
    accepted = set(inspect.signature(module.forward).parameters)
    extra = {"use_cache": False} if "use_cache" in accepted else {}
    moved = [dict({k: v.to(device) for k, v in b.items() if k in accepted}, **extra) for b in batches]
    if not moved:
        raise TrialFailure("invalid", "load_batches", "no batches in " + path)
    return moved


# ---- the training step ----

# The Inductor mode that compiles each repeated block (a transformer layer) on its own instead of the whole module:
# torch compiles the block's code once and reuses it for every layer of that class (parameters are graph inputs,
# torch >= 2.5 inlines built-in modules), so compile time grows with the kinds of block, not the number of layers, at
# the cost of the fusions across block boundaries and the embeddings, head and loss left eager (accelerate's
# compile_regions does the same). A label mode (inductor:regional), not a torch.compile mode: the blocks themselves
# compile with mode "default".
REGIONAL_MODE = "regional"


def repeated_blocks(torch, module):
    """The outermost ModuleLists of two or more blocks of one class: the model's layers (an encoder's and a decoder's
    for T5), as (name, list), outermost first; none inside another one's blocks."""
    found = []
    for name, child in module.named_modules():
        if any(name.startswith(outer + ".") for outer, _ in found):
            continue
        if isinstance(child, torch.nn.ModuleList) and len(child) > 1 and len({type(b) for b in child}) == 1:
            found.append((name, child))
    return found


def compile_regions(torch, module, dynamic):
    """Compiles each block of repeated_blocks in place; "bert.encoder.layer: 2 x BertLayer" for each list, or a
    compile_error when the module has none (nothing to compile regionally)."""
    lists = repeated_blocks(torch, module)
    if not lists:
        raise TrialFailure("compile_error", "compile", "inductor:regional: %s has no repeated blocks (a ModuleList of "
                           "two or more layers of one class) to compile" % type(module).__name__)
    for _, blocks in lists:
        for block in blocks:
            block.compile(mode="default", dynamic=dynamic)
    return ["%s: %d x %s" % (name, len(blocks), type(blocks[0]).__name__) for name, blocks in lists]


class TrainStep:
    """zero grads, forward (autocast for bf16/fp16) with HF's own loss, backward, AdamW; fp16 goes through a
    GradScaler. `inductor`: the module under torch.compile and, for stock AdamW, the optimizer step compiled
    too (Inductor generates the update); the fused AdamW is already one kernel and stays as it is."""

    def __init__(self, torch, module, spec, forward_module=None):
        """forward_module: what the forward calls (a DDP around `module`); the module itself by default."""
        self.torch = torch
        fused = spec["optimizer"] == "fused"
        # The rate is a tensor the step reads, never a constant of the compiled graph: a compiled optimizer step is
        # not recompiled per scheduled rate, and a trial at another rate finds the same graphs in a shared Inductor
        # cache (warm) instead of compiling them again.
        lr = torch.tensor(spec["learning_rate"], device=spec["device"] if fused else "cpu")
        self.optimizer = torch.optim.AdamW(module.parameters(), lr=lr, weight_decay=0.01,
                                           fused=True if fused else None)
        self.device_type = torch.device(spec["device"]).type
        self.dtype = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[spec["precision"]]
        self.scaler = torch.amp.GradScaler(self.device_type) if spec["precision"] == "fp16" else None
        self.forward, self.update = forward_module or module, self.optimizer.step
        self.optimizer_compiled = False
        self.regions = None  # inductor:regional: the repeated blocks compiled one by one (compile_regions)
        if compiles(spec):
            self.compile(module, spec, fused)

    def compile(self, module, spec, fused):
        """The whole forward (a DDP around the module included: DDPOptimizer splits it at bucket boundaries) or, in
        regional mode, each repeated block of the module in place."""
        mode = spec.get("compile_mode", "default")
        dynamic = bool(spec.get("dynamic_shapes", False))
        try:
            if mode == REGIONAL_MODE:
                self.regions = compile_regions(self.torch, module, dynamic)
            else:
                self.forward = self.torch.compile(self.forward, mode=mode, dynamic=dynamic)
            if not fused and self.scaler is None:
                self.update = self.torch.compile(self.optimizer.step)
                self.optimizer_compiled = True
        except TrialFailure:
            raise
        except Exception as e:  # torch.compile checks its arguments (mode, backend) eagerly
            raise TrialFailure("compile_error", "compile", "%s: %s" % (type(e).__name__, e))

    def set_learning_rate(self, rate):
        for group in self.optimizer.param_groups:
            group["lr"].fill_(rate)

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


# ---- compile accounting for the trial's result ----

def counted(messages):
    """Repeated messages once, with their count, as warning_capture.cpp keeps libtorch's warnings."""
    counts = {}
    for m in messages:
        counts[m] = counts.get(m, 0) + 1
    return [m + (" (x%d)" % n if n > 1 else "") for m, n in counts.items()]


def compile_account(torch, transformers, spec, step, result, cache_state, frames_after_first_step, started_empty=False):
    """compile_info and compile_parts for the result: what was compiled, its phases, graphs, breaks, recompiles."""
    versions = "torch %s, transformers %s" % (torch.__version__, transformers.__version__)
    if not compiles(spec):
        return "Hugging Face %s eager in Python (no compile); %s" % (spec["model"]["hf_class"], versions)
    from torch._dynamo.utils import counters
    totals, frames = compile_timers()
    parts = compile_parts(totals)
    result["compile_parts"] = {k: v for k, v in parts.items() if k != "total"}
    recompiles = frames - (frames if frames_after_first_step is None else frames_after_first_step)
    breaks = sum(counters["graph_break"].values())
    result["warnings"] += ["graph break: %s (x%d)" % (reason.splitlines()[0], n) for reason, n in
                           counters["graph_break"].items()]
    what = spec["model"]["hf_class"] if step.regions is None else "each repeated block of %s (%s; the rest eager)" % (
        spec["model"]["hf_class"], "; ".join(step.regions))
    return ("torch.compile(mode=%s, dynamic=%s) of %s, optimizer step %s; %s; graphs %d, graph breaks %d, frames "
            "compiled %d, recompiles after the first step %d; dynamo trace %.2f s, AOT+Inductor codegen %.2f s, "
            "kernel compile %.2f s; Inductor cache %s (%s); compile threads %s" % (
                "default" if step.regions is not None else spec.get("compile_mode", "default"),
                bool(spec.get("dynamic_shapes", False)), what, "compiled" if step.optimizer_compiled else "eager (" + spec["optimizer"] +
                ("" if spec["precision"] != "fp16" else ", GradScaler") + ")", versions,
                counters["stats"]["unique_graphs"], breaks, frames, recompiles, parts["dynamo_trace"],
                parts["aot_inductor_codegen"], parts["kernel_compile"], cache_state, cache_use(counters, started_empty),
                os.environ.get("TORCHINDUCTOR_COMPILE_THREADS", "default")))


def cache_use_state(counters, started_empty=False):
    """What this trial's compile found in the Inductor cache, as torch counts it: "warm" when every FX graph came
    from it, "cold" when none did, "partly warm" between, "unused" when no graph went through it. A compile into a
    cache that started empty is cold whatever it hit: its hits are its own graphs found again (a graph repeated in
    it, e.g. identical layers in the pieces DDPOptimizer splits at buckets), nothing an earlier compile left."""
    hits, misses = counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"]
    if started_empty and misses:
        return "cold"
    return "warm" if hits and not misses else "cold" if misses and not hits else "partly warm" if hits else "unused"


def cache_use(counters, started_empty=False):
    """The state (cache_use_state) with the FX-graph and AOTAutograd hits and misses."""
    fx, aot = counters["inductor"], counters["aot_autograd"]
    own = " (the cache started empty: the hits are this compile's own graphs found again)" if (
        started_empty and fx["fxgraph_cache_hit"] and fx["fxgraph_cache_miss"]) else ""
    return "%s%s: FX graphs %d hits, %d misses, %d bypassed; AOTAutograd %d hits, %d misses" % (
        cache_use_state(counters, started_empty), own, fx["fxgraph_cache_hit"], fx["fxgraph_cache_miss"],
        fx["fxgraph_cache_bypass"], aot["autograd_cache_hit"], aot["autograd_cache_miss"])


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


# ---- one trial: the session the protocol drives ----

def finite_or_text(value):
    """A loss as JSON can carry it: non-finite ones as text ("nan", "inf"); the trial process ends the curve there."""
    return value if math.isfinite(value) else str(value)


class Member:
    """One model's training step in this process and the steps it has run. Warm-up steps (its first warmup_steps)
    are timed one by one with torch's compile timers read around each (torch compiles lazily, inside a step); later
    steps in blocks of the clock's size, nothing read inside. A trial has one; rank 0 of a data-parallel trial has
    two more, without communication (data_parallel.py). `block` wraps each block of steps (a context manager)."""

    def __init__(self, torch, spec, step, batches, block=contextlib.nullcontext, before_step=None, observer=None):
        self.torch, self.step, self.batches, self.block = torch, step, batches, block
        self.warmup_steps, self.before_step, self.observer = spec["warmup_steps"], before_step, observer
        self.clock = StepClock(torch, spec["device"])
        self.steps_done, self.frames_after_first_step, self.compile_seconds = 0, None, 0.0

    def run(self, n, learning_rates=None):
        """n steps; learning_rates, when given, is the rate to set before each (the trial's schedule)."""
        times, compiles, losses = [], [], []
        with self.block():
            if self.observer:
                self.observer.begin_block()
            while len(times) < n:
                warmup = self.steps_done < self.warmup_steps
                before = compile_parts(compile_timers()[0])["total"] if warmup else 0.0
                rates = learning_rates[len(times):] if learning_rates else None
                block = self.timed(1 if warmup else n - len(times), losses, rates)
                times += block
                compiles += [compile_parts(compile_timers()[0])["total"] - before] if warmup else [0.0] * len(block)
                if self.frames_after_first_step is None:
                    self.frames_after_first_step = compile_timers()[1]
            if self.observer:
                self.observer.end_block()
        self.compile_seconds += sum(compiles)
        return {"times": times, "compile_seconds": compiles, "losses": [finite_or_text(float(l.item())) for l in losses]}

    def timed(self, n, losses, rates=None):
        self.clock.mark()
        for i in range(n):
            if rates:
                self.step.set_learning_rate(rates[i])
            if self.before_step:
                self.before_step(self.steps_done)
            if self.observer:
                self.observer.before_step(self.steps_done)
            losses.append(self.step(self.batches[self.steps_done % len(self.batches)]))
            if self.observer:
                self.observer.after_step(self.steps_done, losses[-1])
            self.steps_done += 1
            self.clock.mark()
        return self.clock.collect()


class Session:
    """One trial's module and training step, built at start; then the steps the trial asks for, run by its members
    (Member): "parallel", the trial's own, and on rank 0 of a data-parallel trial "solo" and "unsynced"."""

    def __init__(self, spec):
        self.spec, self.torch, self.transformers, self.step = spec, None, None, None
        self.cache, self.cold, self.cache_state, self.failed = None, False, "", False
        self.cache_rebuilt, self.work_dir, self.observer = None, "", None
        self.artifacts_refused, self.started_empty = None, False
        self.members, self.ddp, self.split = {}, None, None
        self.parallel_account, self.parallel_peak = None, 0  # rank 0's, before its members without communication
        self._catching = warnings.catch_warnings(record=True)
        self.caught = self._catching.__enter__()
        warnings.simplefilter("always")

    def start(self, batches_path, work_dir):
        spec = self.spec
        if spec.get("backend") not in BACKENDS:
            raise TrialFailure("invalid", "setup",
                               "backend '%s': expected %s" % (spec.get("backend"), " or ".join(BACKENDS)))
        if spec["threads"] > 0:
            os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = str(spec["threads"])  # compile on the trial's cores
        if compiles(spec):
            self.cache, self.cache_state, self.cold, self.cache_rebuilt, self.started_empty = prepare_inductor_cache(
                work_dir, spec)
        self.work_dir = work_dir
        self.torch, self.transformers = import_torch_stack()
        if compiles(spec) and spec.get("compile_artifacts"):
            self.load_carried_artifacts(spec["compile_artifacts"])
        set_threads(self.torch, spec["threads"])
        problem = data_parallel.rank_gpu_problem(self.torch, spec) if data_parallel.is_data_parallel(spec) else None
        if problem:
            raise TrialFailure("invalid", "setup", problem)
        cap_memory(self.torch, spec)
        if data_parallel.is_data_parallel(spec):
            smallest = data_parallel.smallest_compiled_bucket_mb(self.torch)
            if compiles(spec) and float(spec.get("bucket_cap_mb", 25)) < smallest:
                raise TrialFailure("invalid", "setup", "bucket_cap_mb %g with torch.compile: DDPOptimizer takes "
                                   "buckets of at least DDP's first one, %g MB" % (spec["bucket_cap_mb"], smallest))
            data_parallel.join_group(self.torch, spec, work_dir)
            self.split = data_parallel.SplitCount() if compiles(spec) else None
        module = build_stage(self.torch, self.transformers, spec)
        self.batches = self.load_rows(batches_path, module)
        self.module = module  # uncompiled: the held-out score runs it eagerly
        # The tool is attached before torch.compile sees the module, as a user's training script attaches it.
        self.observer = step_observers.make_observer(self.torch, spec, module, repeated_blocks(self.torch, module),
                                                     work_dir)
        self.ddp = data_parallel.wrap(self.torch, module, spec) if data_parallel.is_data_parallel(spec) else None
        self.step = TrainStep(self.torch, module, spec, self.ddp)
        fault = (lambda done: data_parallel.inject_rank_fault(spec, done)) if self.ddp else None
        parallel = Member(self.torch, spec, self.step, self.batches, before_step=fault, observer=self.observer)
        self.members["parallel"] = parallel
        return {"parameter_count": sum(p.numel() for p in module.parameters()), "block_steps": parallel.clock.block_steps}

    def load_rows(self, batches_path, module):
        """The trial's batches on the device; a data-parallel rank's own rows of them."""
        try:
            batches = load_batches(self.torch, batches_path, module, self.torch.device(self.spec["device"]))
        except TrialFailure:
            raise
        except Exception as e:  # missing file, unpickling error, wrong layout
            raise TrialFailure("invalid", "load_batches", "cannot read batches %s: %s: %s" % (batches_path, type(e).__name__, e))
        print("tune: worker: %d batches from %s" % (len(batches), batches_path), file=sys.stderr)
        return data_parallel.rank_rows(batches, self.spec) if data_parallel.is_data_parallel(self.spec) else batches

    def load_carried_artifacts(self, path):
        """--compile-artifacts: another process's compiles, loaded before this one compiles (said in compile_info)."""
        try:
            account, refused = compile_cache.load_artifacts(self.torch, path, self.spec.get("device", "cpu"))
        except ValueError as e:
            raise TrialFailure("invalid", "setup", str(e))
        self.cache_state += "; " + account + ("" if refused is None else ": " + refused)
        self.artifacts_refused = refused

    def run_steps(self, n, learning_rates=None, member="parallel"):
        try:
            return self.member(member).run(n, learning_rates)
        except TrialFailure:
            raise
        except Exception as e:
            failure = step_failure(self.torch, e)
            if member != "parallel":
                failure.stage = "%s (rank 0's %s member)" % (failure.stage, member)
            raise failure

    def member(self, name):
        if name not in self.members:
            self.members[name] = self.new_member(name)
        return self.members[name]

    def new_member(self, name):
        """Rank 0's members without communication (data_parallel.py), made at their first block, after the parallel
        member's warm-up: its compile account and peak memory are taken first, so the solo model counts in neither."""
        if name not in ("solo", "unsynced") or self.ddp is None or int(self.spec["rank"]) != 0:
            raise TrialFailure("crashed", "worker", "member %r: expected parallel, or solo or unsynced on rank 0 of a "
                               "data-parallel trial" % name)
        torch = self.torch
        if self.parallel_account is None:
            self.parallel_account = self.account()
            self.parallel_peak = peak_memory_bytes(torch, self.spec.get("device", "cpu"))
        if name == "unsynced":
            return Member(torch, self.spec, self.step, self.batches,
                          block=lambda: data_parallel.unsynced(torch, self.ddp, self.step.optimizer))
        with data_parallel.kept_random_state(torch):  # the model's seeded init leaves the parallel member's stream
            solo = TrainStep(torch, build_stage(torch, self.transformers, self.spec), self.spec)
        return Member(torch, self.spec, solo, self.batches, block=lambda: data_parallel.kept_random_state(torch))

    def evaluate(self, batches_path):
        """The trained module on a classifier's held-out batches, as held_out_score.cpp scores it: eval mode (no
        dropout), no gradients, fp32 logits; the cross-entropy summed and the rows whose highest logit is their label."""
        torch = self.torch
        batches = load_batches(torch, batches_path, self.module, torch.device(self.spec["device"]))
        rows, loss_sum, correct = 0, 0.0, 0
        self.module.eval()
        try:
            with torch.no_grad():
                for batch in batches:
                    labels = batch["labels"]
                    logits = self.module(**{k: v for k, v in batch.items() if k != "labels"}).logits.float()
                    loss_sum += float(torch.nn.functional.cross_entropy(logits, labels, reduction="sum"))
                    correct += int((logits.argmax(-1) == labels).sum())
                    rows += labels.numel()
        except Exception as e:
            failure = step_failure(torch, e)
            raise TrialFailure(failure.status, "held_out", failure.message)
        finally:
            self.module.train()
        return {"rows": rows, "loss_sum": loss_sum, "correct": correct}

    def account(self):
        """The parallel member's compile_info, compile_parts, graph-break warnings (compile_account) and what it
        found in the compile cache (taken before rank 0's solo model compiles, whose hits are not the trial's)."""
        reply = {"warnings": [], "compile_cache": ""}
        reply["compile_info"] = compile_account(self.torch, self.transformers, self.spec, self.step, reply,
                                                self.cache_state, self.members["parallel"].frames_after_first_step,
                                                self.started_empty)
        if compiles(self.spec):
            from torch._dynamo.utils import counters
            reply["compile_cache"] = cache_use_state(counters, self.started_empty)
        return reply

    def data_parallel_account(self, reply):
        """What DDP did, for compile_info, and its buckets: DDPOptimizer's graph split (compiled) or the reducer's."""
        spec = self.spec
        reply["buckets"] = self.split.buckets[-1] if self.split and self.split.buckets else data_parallel.reducer_buckets(self.ddp)
        text = "; data-parallel rank %d of %d: DDP(bucket_cap_mb=%g, buffers not synced before each forward)" % (
            int(spec["rank"]), data_parallel.ranks(spec), float(spec.get("bucket_cap_mb", 25)))
        if self.split is not None:
            text += ", DDPOptimizer split the compiled graph at %s bucket(s)" % (
                "/".join(str(b) for b in self.split.buckets) or "no")
        solo = self.members.get("solo")
        if solo is not None and compiles(spec):
            text += "; rank 0's solo model (no DDP) compiled in %.1f s" % solo.compile_seconds
        reply["compile_info"] += text

    def finish(self):
        self._catching.__exit__(None, None, None)
        reply = {"compile_info": "", "compile_parts": {}, "peak_memory_bytes": 0, "compile_cache": "", "buckets": 0,
                 "warnings": counted(str(w.message).splitlines()[0] for w in self.caught if str(w.message))}
        if self.cache_rebuilt:
            reply["warnings"].append("compile cache %s rebuilt: %s" % (self.cache, self.cache_rebuilt))
        if self.torch is not None and self.step is not None and not self.failed:
            account = self.parallel_account or self.account()
            reply["compile_info"], reply["compile_parts"] = account["compile_info"], account.get("compile_parts", {})
            reply["warnings"] += account["warnings"]
            reply["compile_cache"] = account["compile_cache"]
            if self.ddp is not None:
                self.data_parallel_account(reply)
            if compiles(self.spec):
                if not self.cold:
                    compile_cache.seal(self.cache, self.spec.get("device", "cpu"), self.work_dir)
                if self.spec.get("save_compile_artifacts"):
                    reply["compile_info"] += "; compile artifacts " + compile_cache.save_artifacts(
                        self.torch, self.work_dir, self.spec.get("device", "cpu"))
        if self.artifacts_refused:
            reply["warnings"].append("compile artifacts not loaded (compiled cold): " + self.artifacts_refused)
        if self.observer is not None and not self.failed:
            reply["observer_summary"] = self.observer.finish()
        if self.torch is not None:
            reply["peak_memory_bytes"] = self.parallel_peak or peak_memory_bytes(self.torch, self.spec.get("device", "cpu"))
            data_parallel.leave_group(self.torch)
        if self.cold:
            shutil.rmtree(self.cache, ignore_errors=True)  # cold by construction; keeping it would only cost disk
        return reply


def failure_reply(session, e):
    """A failure as the protocol sends it; anything but a TrialFailure is a crash (or an out-of-memory) in `run`."""
    if session is not None:
        session.failed = True
    if isinstance(e, TrialFailure):
        return {"failure": {"status": e.status, "stage": e.stage, "message": e.message}}
    torch = session.torch if session is not None else None
    oom = torch is not None and is_out_of_memory(torch, e)
    return {"failure": {"status": "oom" if oom else "crashed", "stage": "run", "message": traceback.format_exc()[-4000:]}}


def serve(requests, replies, new_session=Session):
    """The protocol loop: start, steps, evaluate, finish (src/trial/python_trial.h); one JSON line per reply."""
    session = None
    for line in requests:
        request = json.loads(line)
        op = request.get("op")
        try:
            if op == "start":
                if request.get("protocol") != PROTOCOL:
                    raise TrialFailure("crashed", "worker", "protocol %r: this worker speaks %d" % (request.get("protocol"), PROTOCOL))
                session = new_session(request["spec"])
                reply = {"ready": session.start(request["batches"], request["dir"])}
            elif op == "steps":
                reply = {"steps": session.run_steps(int(request["n"]), request.get("learning_rates"),
                                                    request.get("member", "parallel"))}
            elif op == "evaluate":
                reply = {"evaluate": session.evaluate(request["batches"])}
            elif op == "finish":
                reply = {"finish": session.finish() if session is not None else {}}
            else:
                raise TrialFailure("crashed", "worker", "unknown request %r" % op)
        except Exception as e:  # the trial's own failure, never the worker's end
            reply = failure_reply(session, e)
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
        if op == "finish":
            return


def main(argv=None):
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    # The protocol on private copies of the socket (os.dup's are not inherited): a process the worker starts (an
    # Inductor compile worker) must not hold it open past the worker's end, nor read requests, nor print replies.
    requests, replies = os.fdopen(os.dup(0), "r"), os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)  # whatever a library prints goes to the trial's log
    serve(requests, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
