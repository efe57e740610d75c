# The Python worker's side of the observers (src/trial/observer_registry.h): each attached to one trial's module
# as a user attaches the tool to a Hugging Face training loop, acting before and after every step. The worker is
# a process of its own (an observer trial's other member is another process), so a process-wide tool (anomaly
# mode, a profiler) stays on for the worker's whole life. What a tool does to a compiled step (graph breaks,
# recompiles) shows in the worker's compile account.
"""Observers for the Python worker: profiler, profiler-detail, profiler-schedule, anomaly, tensor-stats[:N], loss-log."""
import json
import math
import os

# The names this side implements: ObserverRegistry.* holds them to the registry's entries.
NAMES = ("profiler", "profiler-detail", "profiler-schedule", "anomaly", "tensor-stats", "loss-log")
DEFAULT_INTERVAL = 1  # kDefaultObserverInterval


class Observer:
    def begin_block(self):
        pass

    def end_block(self):
        pass

    def before_step(self, step):
        pass

    def after_step(self, step, loss):
        pass

    def finish(self):
        return ""


def activities(torch, device):
    kinds = [torch.profiler.ProfilerActivity.CPU]
    if device.startswith("cuda"):
        kinds.append(torch.profiler.ProfilerActivity.CUDA)
    return kinds


class Profiler(Observer):
    """torch.profiler.profile on every step; on for each block of steps (as the libtorch side), the last block's
    trace exported at the end."""

    def __init__(self, torch, device, out_dir, detail):
        self.torch, self.device, self.out_dir, self.detail = torch, device, out_dir, detail
        self.profile, self.events, self.steps = None, 0, 0

    def begin_block(self):
        self.profile = self.torch.profiler.profile(activities=activities(self.torch, self.device),
                                                   record_shapes=self.detail, with_stack=self.detail)
        self.profile.start()

    def end_block(self):
        self.profile.stop()
        self.events += len(self.profile.events())

    def after_step(self, step, loss):
        self.steps += 1

    def finish(self):
        trace = os.path.join(self.out_dir, "trace.json")
        if self.profile is not None:
            self.profile.export_chrome_trace(trace)
        return "profiled %d steps, %d events%s; the last block's trace in %s" % (
            self.steps, self.events, " with input shapes and stacks" if self.detail else "", trace)


class ScheduledProfiler(Observer):
    """torch.profiler.schedule(wait=1, warmup=1, active=3) with tensorboard_trace_handler writing each active
    window's trace when it ends, prof.step() after every step."""
    WAIT, WARMUP, ACTIVE = 1, 1, 3

    def __init__(self, torch, device, out_dir):
        self.out_dir, self.traces = out_dir, 0
        handler = torch.profiler.tensorboard_trace_handler(out_dir)

        def on_ready(prof):
            self.traces += 1
            handler(prof)

        self.profile = torch.profiler.profile(
            activities=activities(torch, device), on_trace_ready=on_ready,
            schedule=torch.profiler.schedule(wait=self.WAIT, warmup=self.WARMUP, active=self.ACTIVE))
        self.profile.start()

    def after_step(self, step, loss):
        self.profile.step()

    def finish(self):
        self.profile.stop()
        return "schedule wait %d, warm-up %d, active %d: %d traces written to %s" % (
            self.WAIT, self.WARMUP, self.ACTIVE, self.traces, self.out_dir)


class Anomaly(Observer):
    def __init__(self, torch):
        torch.autograd.set_detect_anomaly(True)
        self.steps = 0

    def after_step(self, step, loss):
        self.steps += 1

    def finish(self):
        return "anomaly detection on for %d steps" % self.steps


def tensor_stats(torch, t):
    """[norm, min, max, mean, NaN count, inf count] of t in fp32, read to the host: what a debugger writes."""
    f = t.detach().float()
    return torch.stack([f.norm(), f.min(), f.max(), f.mean(), f.isnan().sum().float(),
                        f.isinf().sum().float()]).tolist()


def stats_row(step, kind, name, values):
    norm, low, high, mean, nans, infs = values
    finite = lambda x: x if math.isfinite(x) else None  # as the libtorch side writes them (JSON has no NaN)
    return {"step": step + 1, "kind": kind, "name": name, "norm": finite(norm), "min": finite(low),
            "max": finite(high), "mean": finite(mean), "nan": int(nans), "inf": int(infs)}


class TensorStats(Observer):
    """A training debugger's collection, every `interval` steps: each layer's output (a forward hook on every block
    of the model's repeated layers) and each parameter's gradient (a tensor hook), read to the host inside the hook
    as debuggers do, written as JSON lines after the step. Under torch.compile the hooks' host reads are graph
    breaks: the compile account counts them."""

    def __init__(self, torch, module, blocks, out_dir, interval):
        self.torch, self.interval, self.collecting, self.step, self.rows = torch, interval, False, 0, []
        self.path = os.path.join(out_dir, "tensor_stats.jsonl")
        self.out = open(self.path, "w")
        self.collected, self.activations, self.gradients = 0, 0, 0
        for list_name, layers in blocks:
            for i, layer in enumerate(layers):
                layer.register_forward_hook(self.activation_hook("%s.%d" % (list_name, i)))
        for name, parameter in module.named_parameters():
            if parameter.requires_grad:
                parameter.register_hook(self.gradient_hook(name))

    def activation_hook(self, name):
        def hook(layer, inputs, output):
            if self.collecting:
                hidden = output[0] if isinstance(output, tuple) else output
                self.rows.append(stats_row(self.step, "activation", name, tensor_stats(self.torch, hidden)))
        return hook

    def gradient_hook(self, name):
        def hook(grad):
            if self.collecting:
                self.rows.append(stats_row(self.step, "gradient", name, tensor_stats(self.torch, grad)))
        return hook

    def before_step(self, step):
        self.step, self.collecting = step, step % self.interval == 0

    def after_step(self, step, loss):
        if not self.collecting:
            return
        self.collected += 1
        for row in self.rows:
            if row["kind"] == "activation":
                self.activations += 1
            else:
                self.gradients += 1
            self.out.write(json.dumps(row) + "\n")
        self.out.flush()
        self.rows, self.collecting = [], False

    def finish(self):
        self.out.close()
        return "every %d steps: %d steps collected, %d layer outputs and %d gradients, to %s" % (
            self.interval, self.collected, self.activations, self.gradients, self.path)


class LossLog(Observer):
    def __init__(self, out_dir):
        self.path, self.lines = os.path.join(out_dir, "loss.log"), 0
        self.out = open(self.path, "w")

    def after_step(self, step, loss):
        self.out.write("step %d loss %r\n" % (step + 1, float(loss)))  # float(): the host sync it costs
        self.lines += 1

    def finish(self):
        self.out.close()
        return "logged %d losses to %s" % (self.lines, self.path)


class Failing(Observer):
    """The fault matrix's observer that throws (observer_fails_at_step): the tool's own failure mid-run."""

    def __init__(self, inner, fails_at_step):
        self.inner, self.fails_at_step = inner, fails_at_step

    def begin_block(self):
        self.inner.begin_block()

    def end_block(self):
        self.inner.end_block()

    def before_step(self, step):
        if step + 1 == self.fails_at_step:
            raise RuntimeError("observer failed at step %d (TEST ONLY: observer_fails_at_step)" % (step + 1))
        self.inner.before_step(step)

    def after_step(self, step, loss):
        self.inner.after_step(step, loss)

    def finish(self):
        return self.inner.finish()


def parse_label(label):
    """("tensor-stats", 10) for "tensor-stats:10"; the trial process checked the label (observer_registry.cpp)."""
    name, _, interval = label.partition(":")
    if name not in NAMES:
        raise ValueError("observer '%s': expected one of %s" % (label, ", ".join(NAMES)))
    return name, int(interval) if interval else DEFAULT_INTERVAL


def make_observer(torch, spec, module, blocks, work_dir):
    """The spec's observer on `module` (blocks: its repeated layers, as (name, ModuleList)), writing under
    work_dir/observers/LABEL; None when the spec names none."""
    label = spec.get("observer", "")
    if not label:
        return None
    name, interval = parse_label(label)
    out_dir = os.path.join(work_dir, "observers", label.replace(":", "-"))
    os.makedirs(out_dir, exist_ok=True)
    device = spec.get("device", "cpu")
    observer = {"profiler": lambda: Profiler(torch, device, out_dir, False),
                "profiler-detail": lambda: Profiler(torch, device, out_dir, True),
                "profiler-schedule": lambda: ScheduledProfiler(torch, device, out_dir),
                "anomaly": lambda: Anomaly(torch),
                "tensor-stats": lambda: TensorStats(torch, module, blocks, out_dir, interval),
                "loss-log": lambda: LossLog(out_dir)}[name]()
    fails_at = int(spec.get("observer_fails_at_step", 0))
    return Failing(observer, fails_at) if fails_at > 0 else observer
