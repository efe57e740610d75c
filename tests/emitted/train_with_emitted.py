"""Loads a file tune emitted (`tune --emit`, `tune export --emit`) into the real library, as a user's script would,
and trains a tiny BERT three steps with it; prints what the library took from the file as key=value lines, which
tests/test_emitted_configs.cpp checks against tune's answer.

    python train_with_emitted.py FORMAT FILE     FORMAT: hf, accelerate, lightning, pytorch
"""
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import torch

STEPS = 3


def say(key, value):
    print("%s=%s" % (key, value), flush=True)


def tiny_bert():
    from transformers import BertConfig, BertForMaskedLM
    torch.manual_seed(0)
    return BertForMaskedLM(BertConfig(vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                      intermediate_size=64, max_position_embeddings=64))


def rows(count, seq_len=16):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, 128, (count, seq_len), generator=g)
    return [{"input_ids": ids[i], "attention_mask": torch.ones(seq_len, dtype=torch.long), "labels": ids[i]}
            for i in range(count)]


def compiled_graphs():
    """Graphs torch.compile compiled in this process (0: the file did not compile)."""
    from torch._dynamo.utils import counters
    return counters["stats"]["unique_graphs"]


def load_module(path):
    spec = importlib.util.spec_from_file_location("emitted", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_hf(path):
    from transformers import Trainer, TrainingArguments
    with open(path) as f:
        emitted = json.load(f)
    args = TrainingArguments(**emitted)  # exactly what the user runs
    for key in ("per_device_train_batch_size", "learning_rate", "lr_scheduler_type", "warmup_steps", "weight_decay",
                "max_grad_norm", "optim", "bf16", "fp16", "torch_compile", "torch_compile_backend", "torch_compile_mode",
                "use_cpu", "gradient_accumulation_steps"):
        value = getattr(args, key)
        say(key, getattr(value, "value", value))
    with tempfile.TemporaryDirectory() as out:
        run = TrainingArguments(**dict(emitted, output_dir=out, max_steps=STEPS, save_strategy="no", report_to="none",
                                       logging_steps=1))
        samples = STEPS * args.per_device_train_batch_size * args.gradient_accumulation_steps
        trainer = Trainer(model=tiny_bert(), args=run, train_dataset=rows(samples))
        result = trainer.train()
    say("optimizer", type(getattr(trainer.optimizer, "optimizer", trainer.optimizer)).__name__)  # inside accelerate's wrapper
    say("optimizer_weight_decay", trainer.optimizer.param_groups[0]["weight_decay"])
    say("steps", result.global_step)
    say("compiled_graphs", compiled_graphs())
    say("loss_finite", math.isfinite(result.training_loss))


def train_plain(module, model, device_type="cpu"):
    """STEPS optimizer steps, each over GRADIENT_ACCUMULATION micro-batches of BATCH_SIZE."""
    model = module.prepare(model)
    optimizer = module.make_optimizer(model)
    scheduler = module.make_scheduler(optimizer, STEPS)
    size, accumulate = module.BATCH_SIZE, module.GRADIENT_ACCUMULATION
    data = rows(STEPS * size * accumulate)
    losses = []
    for micro in range(STEPS * accumulate):
        batch = {k: torch.stack([r[k] for r in data[micro * size:(micro + 1) * size]]) for k in data[0]}
        with module.autocast(device_type):
            loss = model(**batch).loss / accumulate
        loss.backward()
        losses.append(loss.item())
        if (micro + 1) % accumulate == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
    return optimizer, losses


def check_pytorch(path):
    module = load_module(path)
    optimizer, losses = train_plain(module, tiny_bert())
    say("batch_size", module.BATCH_SIZE)
    say("gradient_accumulation", module.GRADIENT_ACCUMULATION)
    say("learning_rate", optimizer.defaults["lr"])
    say("optimizer", type(optimizer).__name__)
    say("optimizer_weight_decay", optimizer.defaults["weight_decay"])
    say("precision", module.PRECISION)
    say("compile", module.COMPILE)
    say("steps", len(losses) // module.GRADIENT_ACCUMULATION)
    say("compiled_graphs", compiled_graphs())
    say("loss_finite", all(math.isfinite(l) for l in losses))


def check_lightning(path):
    import lightning as L
    module = load_module(path)
    losses = []

    class Tiny(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = module.prepare(tiny_bert())

        def training_step(self, batch, index):
            loss = self.model(**batch).loss
            losses.append(loss.item())
            return loss

        def configure_optimizers(self):
            return module.configure_optimizers(self, self.trainer.estimated_stepping_batches)

    with tempfile.TemporaryDirectory() as out:
        trainer = L.Trainer(**module.TRAINER_KWARGS, max_steps=STEPS, logger=False, enable_checkpointing=False,
                            enable_progress_bar=False, enable_model_summary=False, default_root_dir=out)
        samples = STEPS * module.BATCH_SIZE * module.GRADIENT_ACCUMULATION
        loader = torch.utils.data.DataLoader(rows(samples), batch_size=module.BATCH_SIZE)
        tiny = Tiny()
        trainer.fit(tiny, loader)
    optimizer = trainer.optimizers[0]
    say("batch_size", module.BATCH_SIZE)
    say("learning_rate", optimizer.defaults["lr"])
    say("optimizer", type(optimizer).__name__)
    say("precision", trainer.precision)
    say("gradient_accumulation", trainer.accumulate_grad_batches)
    say("steps", trainer.global_step)
    say("compiled_graphs", compiled_graphs())
    say("loss_finite", len(losses) == samples // module.BATCH_SIZE and all(math.isfinite(l) for l in losses))


def check_accelerate(path):
    """`accelerate launch --config_file FILE` runs this script's child half, as it would the user's script."""
    launched = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--config_file", path, __file__,
                               "accelerate-child", path], capture_output=True, text=True, timeout=600)
    sys.stdout.write(launched.stdout)
    if launched.returncode != 0:
        sys.stderr.write(launched.stderr)
        sys.exit("accelerate launch failed with exit %d" % launched.returncode)


def accelerate_child(path):
    from accelerate import Accelerator
    with open(path) as f:
        text = f.read()
    batch = int(re.search(r"batch_size=(\d+)", text).group(1))
    rate = float(re.search(r"AdamW lr=([0-9.e+-]+)", text).group(1))
    accumulate = int(re.search(r"gradient_accumulation_steps=(\d+)", text).group(1))
    # everything else from the config file, through the launcher
    accelerator = Accelerator(gradient_accumulation_steps=accumulate)
    model = tiny_bert()
    optimizer = torch.optim.AdamW(model.parameters(), lr=rate, weight_decay=0.01)
    loader = torch.utils.data.DataLoader(rows(STEPS * batch * accumulate), batch_size=batch)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    losses, updates = [], 0
    for batch_rows in loader:
        with accelerator.accumulate(model):
            loss = model(**batch_rows).loss
            accelerator.backward(loss)
            optimizer.step()
            updates += accelerator.sync_gradients
            optimizer.zero_grad()
        losses.append(loss.item())
    say("batch_size", batch)
    say("gradient_accumulation", accumulate)
    say("learning_rate", rate)
    say("mixed_precision", accelerator.mixed_precision)
    say("device", accelerator.device.type)
    plugin = accelerator.state.dynamo_plugin
    say("dynamo_backend", getattr(plugin.backend, "value", plugin.backend).lower())
    say("steps", updates)
    say("compiled_graphs", compiled_graphs())
    say("loss_finite", all(math.isfinite(l) for l in losses))


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    checks = {"hf": check_hf, "pytorch": check_pytorch, "lightning": check_lightning, "accelerate": check_accelerate,
              "accelerate-child": accelerate_child}
    checks[sys.argv[1]](sys.argv[2])
