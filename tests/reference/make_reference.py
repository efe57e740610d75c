#!/usr/bin/env python3
# Test reference (ground truth): builds a Hugging Face model from a tested_models YAML with a fixed seed
# and no download, saves its weights and its logits and loss on fixed inputs, for the C++ parity tests.
"""usage: make_reference.py MODEL_YAML OUT_DIR [--batch B] [--seq S] [--save-dtype float16|bfloat16]
                         [--max-shard-size SIZE] [--bin] [--base-only]

Writes OUT_DIR/model.safetensors + config.json (HF save_pretrained) and OUT_DIR/reference.safetensors
holding the inputs (input_ids, attention_mask, labels, and token_type_ids / decoder_input_ids where
the task uses them), the logits and the loss (shape [1]), and OUT_DIR/reference.json (num_parameters).
The folder variants a user meets: weights saved in fp16 or bf16 (the logits are then those of the model
transformers' from_pretrained(dtype=torch.float32) loads from the folder: the saved values in fp32), sharded (max_shard_size, with
model.safetensors.index.json), pytorch_model.bin (--bin), or the base model without its head (--base-only).
"""
import argparse
import json
import os

import torch
import transformers
import yaml
from safetensors.torch import save_file

MODEL_TYPES = {"bert": "bert", "roberta": "roberta", "distilbert": "distilbert", "gpt2": "gpt2", "t5": "t5"}


def build(spec):
    model_type = MODEL_TYPES[spec["family"]]
    if spec.get("hf_class", "").startswith("XLMRoberta"):
        model_type = "xlm-roberta"
    config = transformers.AutoConfig.for_model(model_type, **spec["config"])
    config._attn_implementation = "eager"  # the reference math; our C++ writes attention out
    torch.manual_seed(0)
    model = getattr(transformers, spec["hf_class"])(config)
    return model.eval()


def word_ids(spec, gen, shape):
    tokens = spec.get("tokens", {})
    low = tokens.get("first_word", 999)
    high = tokens.get("last_word", spec["config"]["vocab_size"] - 1) + 1
    return torch.randint(low, high, shape, generator=gen)


def inputs_for(spec, batch, seq):
    gen = torch.Generator().manual_seed(1234)
    ids = word_ids(spec, gen, (batch, seq))
    mask = torch.ones(batch, seq, dtype=torch.long)
    task = spec.get("task", "masked_lm")
    out = {"input_ids": ids, "attention_mask": mask}
    if task in ("masked_lm", "sequence_classification"):
        # A padded tail in the last row, as a tokenizer pads: pad ids (RoBERTa's positions skip them) that
        # the mask must hide.
        mask[-1, -3:] = 0
        ids[-1, -3:] = spec["config"].get("pad_token_id", 0)
    if task == "masked_lm":
        labels = torch.full_like(ids, -100)
        pick = (torch.rand(ids.shape, generator=gen) < 0.3) & (mask == 1)
        labels[pick] = ids[pick]
        labels[0, 1] = ids[0, 1]
        out["labels"] = labels
    elif task == "causal_lm":
        mask[-1, -3:] = 0  # right padding in the last row, unscored as a collator leaves it
        labels = ids.clone()
        labels[-1, -3:] = -100
        out["labels"] = labels
    elif task == "span_corruption":
        mask[-1, -3:] = 0  # padded encoder tail: cross-attention must not see it
        target = word_ids(spec, gen, (batch, max(4, seq // 4)))
        target[-1, -1] = -100
        out["labels"] = target
    elif task == "sequence_classification":
        out["labels"] = torch.tensor([i % spec["config"].get("num_labels", 2) for i in range(batch)])
    if spec["family"] == "bert":
        out["token_type_ids"] = torch.zeros_like(ids)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_yaml")
    ap.add_argument("out_dir")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--save-dtype", choices=["float16", "bfloat16"])
    ap.add_argument("--max-shard-size", default="5GB")
    ap.add_argument("--bin", action="store_true")
    ap.add_argument("--base-only", action="store_true")
    args = ap.parse_args()
    with open(args.model_yaml) as f:
        spec = yaml.safe_load(f)
    model = build(spec)
    if args.save_dtype:
        model = model.to(getattr(torch, args.save_dtype))
    os.makedirs(args.out_dir, exist_ok=True)
    saved = model.base_model if args.base_only else model
    if args.bin:  # the pre-safetensors format: torch.save of the state_dict (a pickle), and config.json
        torch.save(saved.state_dict(), os.path.join(args.out_dir, "pytorch_model.bin"))
        saved.config.save_pretrained(args.out_dir)
    else:
        saved.save_pretrained(args.out_dir, max_shard_size=args.max_shard_size)
    model = model.float()
    inputs = inputs_for(spec, args.batch, args.seq)
    with torch.no_grad():
        result = model(**inputs)
    tensors = dict(inputs)
    if spec["family"] == "t5":
        tensors["decoder_input_ids"] = model._shift_right(inputs["labels"])
    tensors["logits"] = result.logits.float().contiguous()
    tensors["loss"] = result.loss.reshape(1).float()
    save_file({k: v.contiguous() for k, v in tensors.items()}, os.path.join(args.out_dir, "reference.safetensors"))
    with open(os.path.join(args.out_dir, "reference.json"), "w") as f:
        json.dump({"num_parameters": model.num_parameters(), "transformers": transformers.__version__}, f)


if __name__ == "__main__":
    main()
