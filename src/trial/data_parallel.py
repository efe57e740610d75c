# The Python worker's side of a data-parallel trial (src/trial/worker_data_parallel.h drives it): the process group,
# this rank's rows, HF's module under DistributedDataParallel, and rank 0's two members without communication.
"""Data-parallel training of Hugging Face's module in the Python worker, as a user's DDP job runs it.

Each rank is one worker process; the trial process (rank 0's driver) asks every rank for the same steps at once,
so they step in lockstep, each waiting in DDP's all-reduce for the others. Rank 0 also runs, while the others wait
for their next request:
- the solo member: a model of its own, compiled (or not) as a one-process trial compiles it, no DDP: one rank's
  step, the scaling efficiency's reference;
- the unsynced member: the parallel member's own DDP module and step under no_sync() (no all-reduce), its
  parameters, optimizer state and random state put back after each block: DDP's wrapping without communication.
  Under torch.compile that is the graph DDPOptimizer split at bucket boundaries, so unsynced over solo is what the
  split costs, and parallel minus unsynced the communication the backward did not hide.
"""
import contextlib
import datetime
import inspect
import logging
import os
import re
import signal

DDP_OPTIMIZER_LOG = "torch._dynamo.backends.distributed"
FAULT_STEP = 3  # kFaultStep in data_parallel.cpp: the step (1-based) a test's rank fault happens at


def ranks(spec):
    return int(spec.get("ranks", 1))


def is_data_parallel(spec):
    return ranks(spec) > 1


def rank_cache_folder(folder, spec):
    """Rank K > 0 compiles into a folder of its own beside rank 0's: ranks compile at once, and one rank's cache check
    (compile_cache.open_cache) must never empty or refuse a folder another rank is writing."""
    rank = int(spec.get("rank", 0))
    return folder if rank == 0 or not is_data_parallel(spec) else "%s-rank-%d" % (folder.rstrip("/"), rank)


def comm_backend(spec):
    """gloo on a CPU, nccl on a GPU: what comm_backend (data_parallel_figures.cpp) allows, the driver checked it."""
    return "nccl" if spec["device"].startswith("cuda") else "gloo"


def rank_gpu_problem(torch, spec):
    """Why this rank cannot have its GPU (NCCL runs one rank per device; the driver gave rank K cuda:first+K), or
    None."""
    if comm_backend(spec) != "nccl":
        return None
    device, gpus = torch.device(spec["device"]), torch.cuda.device_count()
    if device.index is not None and device.index < gpus:
        return None
    return ("rank %d trains on %s, but this machine has %d CUDA device(s): NCCL runs one rank per GPU (as "
            "check_rank_gpus says before a search)" % (int(spec["rank"]), spec["device"], gpus))


def join_group(torch, spec, work_dir):
    """This rank in the trial's process group (gloo on a CPU; NCCL on a GPU, the rank's own device made current),
    through the file store the driver cleared in the trial folder. A rank that sends nothing for
    collective_timeout_seconds makes the others' collectives fail (a hang)."""
    import torch.distributed as dist
    timeout = datetime.timedelta(seconds=float(spec.get("collective_timeout_seconds", 120)))
    bound = {}
    if comm_backend(spec) == "nccl":
        torch.cuda.set_device(torch.device(spec["device"]))
        bound["device_id"] = torch.device(spec["device"])
    store = "file://" + os.path.abspath(os.path.join(work_dir, "dp-store"))
    dist.init_process_group(comm_backend(spec), init_method=store,
                            rank=int(spec["rank"]), world_size=ranks(spec), timeout=timeout, **bound)


def leave_group(torch):
    import torch.distributed as dist
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def rank_rows(batches, spec, rank=None):
    """This rank's rows of each global batch of ranks x batch_size rows: the batches a one-process trial at the
    global batch trains on (the driver wrote those)."""
    rank = int(spec["rank"]) if rank is None else rank
    first, size = rank * int(spec["batch_size"]), int(spec["batch_size"])
    return [{k: (v[first:first + size] if hasattr(v, "shape") else v) for k, v in b.items()} for b in batches]


class SplitCount(logging.Handler):
    """The buckets DDPOptimizer split the compiled graph into, from its own log line ("created N buckets")."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.buckets = []
        logger = logging.getLogger(DDP_OPTIMIZER_LOG)
        logger.addHandler(self)
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)

    def emit(self, record):
        found = re.search(r"created (\d+) buckets", record.getMessage())
        if found:
            self.buckets.append(int(found.group(1)))


def wrap(torch, module, spec):
    """HF's module under DDP, as a DDP job wraps it: buckets of bucket_cap_mb, gradients all-reduced as backward
    makes them. Buffers are not synced before each forward (forward_sync_buffers=False; broadcast_buffers=False before
    torch named it so): a transformer's buffers are constants (position ids), and rank 0's members without
    communication run a forward while the other ranks wait (a buffer broadcast would wait for them)."""
    ddp = torch.nn.parallel.DistributedDataParallel
    no_sync = {"forward_sync_buffers": False} if "forward_sync_buffers" in inspect.signature(ddp).parameters else {
        "broadcast_buffers": False}
    return ddp(module, bucket_cap_mb=float(spec.get("bucket_cap_mb", 25)), **no_sync)


def smallest_compiled_bucket_mb(torch):
    """DDPOptimizer (torch.compile of a DDP module) asserts that DDP's first bucket (1 MB) is no larger than the
    others: the smallest bucket cap a compiled DDP step takes."""
    return getattr(torch.distributed, "_DEFAULT_FIRST_BUCKET_BYTES", 1024 * 1024) / (1024.0 * 1024.0)


def reducer_buckets(ddp):
    """The all-reduce buckets DDP's reducer uses now: after its first step it rebuilds them in the order gradients
    came (the first iteration's are one first bucket of up to 1 MB), so ask after the warm-up. 0 where torch does not
    say (a private call: torch may drop it)."""
    try:
        return len(ddp.reducer._get_zeros_like_grad_buckets()) if ddp else 0
    except Exception:
        return 0


class Snapshot:
    """The parallel member's training state before an unsynced block: parameters and optimizer state (rates
    included), copied back in place after it (in place: a compiled optimizer step keeps its tensors)."""

    def __init__(self, torch, optimizer):
        self.torch = torch
        self.tensors = [p for g in optimizer.param_groups for p in g["params"]]
        self.tensors += [g["lr"] for g in optimizer.param_groups if torch.is_tensor(g["lr"])]
        self.tensors += [v for state in optimizer.state.values() for v in state.values() if torch.is_tensor(v)]
        with torch.no_grad():
            self.saved = [t.detach().clone() for t in self.tensors]

    def restore(self):
        with self.torch.no_grad():
            for tensor, saved in zip(self.tensors, self.saved):
                tensor.copy_(saved)


@contextlib.contextmanager
def unsynced(torch, ddp, optimizer):
    """A block of the parallel member's steps with no all-reduce, its training and random state put back afterwards."""
    snapshot = Snapshot(torch, optimizer)
    try:
        with kept_random_state(torch), ddp.no_sync():
            yield
    finally:
        snapshot.restore()


def inject_rank_fault(spec, step):
    """TEST ONLY (TestHooks::rank_fault): the failing rank's fault at FAULT_STEP of its parallel steps."""
    fault = spec.get("rank_fault", "")
    if not fault or int(spec.get("rank", 0)) != int(spec.get("failing_rank", 1)) or step + 1 != FAULT_STEP:
        return
    if fault == "oom":
        raise MemoryError("out of memory (injected rank fault)")
    if fault == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == "hang":
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        while True:
            signal.pause()


@contextlib.contextmanager
def kept_random_state(torch):
    """Rank 0's solo member draws from torch's random state (its init, its dropout) and gives it back: the parallel
    member's stream is the one it would have without the solo member."""
    state = torch.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(state)
