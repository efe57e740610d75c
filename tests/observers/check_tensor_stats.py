# The Python worker's tensor-stats observer (src/trial/step_observers.py) against a direct computation: a two-layer
# module with a ModuleList, one collected step and one skipped; every row's statistics equal the tensor's own.
"""Usage: check_tensor_stats.py SRC_TRIAL_DIR OUT_DIR; exits 0 when every row matches, 1 with the mismatches."""
import json
import os
import sys

import torch

sys.path.insert(0, sys.argv[1])
import step_observers  # noqa: E402


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x


def direct(t):
    t = t.detach().float()
    return [t.norm().item(), t.min().item(), t.max().item(), t.mean().item(), int(t.isnan().sum()), int(t.isinf().sum())]


def main():
    torch.manual_seed(0)
    module, x = Tiny(), torch.randn(4, 8)
    outputs = {}
    for i, layer in enumerate(module.layers):  # the outputs as the forward makes them, beside the observer's hooks
        layer.register_forward_hook(lambda m, inp, out, i=i: outputs.__setitem__("layers.%d" % i, out.detach().clone()))
    spec = {"observer": "tensor-stats:2", "device": "cpu"}
    observer = step_observers.make_observer(torch, spec, module, [("layers", module.layers)], sys.argv[2])
    for step in range(2):
        module.zero_grad(set_to_none=True)
        observer.before_step(step)
        loss = module(x).square().mean()
        loss.backward()
        observer.after_step(step, loss.detach())
    summary = observer.finish()
    rows = [json.loads(line) for line in open(os.path.join(sys.argv[2], "observers", "tensor-stats-2", "tensor_stats.jsonl"))]
    wrong = []
    grads = dict(module.named_parameters())
    for row in rows:
        want = direct(outputs[row["name"]] if row["kind"] == "activation" else grads[row["name"]].grad)
        got = [row["norm"], row["min"], row["max"], row["mean"], row["nan"], row["inf"]]
        if row["step"] != 1 or any(abs(a - b) > 1e-5 * (1 + abs(b)) for a, b in zip(got, want)):
            wrong.append("%s: got %s, want %s" % (row["name"], got, want))
    kinds = sorted(r["kind"] for r in rows)
    if kinds != ["activation"] * 2 + ["gradient"] * 4:
        wrong.append("rows %s: expected 2 layer outputs and 4 gradients of step 1 only" % kinds)
    print(summary)
    print("\n".join(wrong) if wrong else "ok")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
