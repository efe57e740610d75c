"""The pretrained-start check of issue 33, the Python half (Hugging Face transformers is the reference here).

  pretrain OUT   trains a small BERT (2 layers, hidden 128, BERT's uncased WordPiece vocabulary) with masked-LM
                 on the shared corpus and saves it as a Hugging Face folder (save_pretrained, with its tokenizer):
                 the pretrained checkpoint a user would bring to `tune --model FOLDER`.
  report         the figures: each rate's held-out loss and accuracy over the seeds, and whether the chosen rate
                 lies within the noise of the better of its neighbours (paired by seed: a t-interval of the
                 difference), as markdown and JSON.
  finetune CKPT  fine-tunes CKPT as a sequence classifier the way tune's learning-rate trials train (AdamW with
                 weight decay 0.01, betas 0.9/0.999, eps 1e-8; linear warm-up over 10% of the steps, then cosine
                 decay to 0; rows drawn uniformly at random with the seed; [CLS] text [SEP] cut or padded to the
                 sequence length) and prints the held-out loss and accuracy on the test CSV as one JSON line.

scripts/pretrained-check runs the whole check: this pretrain, tune's search on the labelled reviews, then this
finetune at the chosen rate and its x3 and /3 neighbours over a 10x longer horizon, from several seeds.
Every random choice takes --seed.
"""
import argparse
import csv
import json
import math
import os
import random
import sys
import time

import torch
from transformers import BertConfig, BertForMaskedLM, BertForSequenceClassification, BertTokenizerFast


def read_corpus_chunks(paths, tokenizer, seq_len):
    """The corpus files as token-id chunks of seq_len - 2 (room for [CLS] and [SEP])."""
    ids = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for start in range(0, len(text), 100_000):  # the tokenizer is fastest on medium pieces
            ids.extend(tokenizer(text[start:start + 100_000], add_special_tokens=False)["input_ids"])
    body = seq_len - 2
    return [ids[i:i + body] for i in range(0, len(ids) - body, body)]


def masked_batch(chunks, tokenizer, batch_size, rng):
    """BERT's masking: 15% of the tokens are predicted; of those 80% become [MASK], 10% a random id, 10% stay."""
    rows = [[tokenizer.cls_token_id] + rng.choice(chunks) + [tokenizer.sep_token_id] for _ in range(batch_size)]
    ids = torch.tensor(rows)
    labels = ids.clone()
    special = (ids == tokenizer.cls_token_id) | (ids == tokenizer.sep_token_id)
    generator = torch.Generator().manual_seed(rng.getrandbits(62))
    chosen = (torch.rand(ids.shape, generator=generator) < 0.15) & ~special
    labels[~chosen] = -100
    draw = torch.rand(ids.shape, generator=generator)
    ids[chosen & (draw < 0.8)] = tokenizer.mask_token_id
    swap = chosen & (draw >= 0.8) & (draw < 0.9)
    ids[swap] = torch.randint(len(tokenizer), ids.shape, generator=generator)[swap]
    return ids, labels


def pretrain(args):
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    tokenizer = BertTokenizerFast(vocab=args.vocab, do_lower_case=True)  # vocab_file= is ignored in transformers 5
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=512, max_position_embeddings=512)
    model = BertForMaskedLM(config)
    chunks = read_corpus_chunks(args.corpus, tokenizer, args.seq_len)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(1, args.steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (args.steps - s) / (args.steps - warmup))))
    model.train()
    started = time.time()
    for step in range(args.steps):
        ids, labels = masked_batch(chunks, tokenizer, args.batch, rng)
        hidden = model.bert(input_ids=ids).last_hidden_state
        predicted = labels != -100  # the decoder over the masked positions only: 1/7 of its cost
        logits = model.cls(hidden[predicted])
        loss = torch.nn.functional.cross_entropy(logits, labels[predicted])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        if step % 100 == 0 or step == args.steps - 1:
            print(f"pretrain step {step}: masked-LM loss {loss.item():.3f} ({time.time() - started:.0f} s)",
                  file=sys.stderr)
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    print(json.dumps({"out": args.out, "steps": args.steps, "final_loss": loss.item(), "seed": args.seed,
                      "chunks": len(chunks), "seconds": time.time() - started}))


def read_labelled(path):
    """(texts, label ids) of a CSV with review and score columns; label ids in sorted order, as tune maps them."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    names = sorted({r["score"] for r in rows})
    return [r["review"] for r in rows], [names.index(r["score"]) for r in rows], names


def encode(tokenizer, texts, seq_len):
    enc = tokenizer(texts, max_length=seq_len, truncation=True, padding="max_length", return_tensors="pt")
    return enc["input_ids"], enc["attention_mask"]


def cosine_with_warmup(steps, warmup_share):
    warmup = max(1, round(steps * warmup_share))
    return lambda s: (s + 1) / warmup if s < warmup else 0.5 * (1 + math.cos(math.pi * (s - warmup) / max(1, steps - warmup)))


def evaluate(model, ids, mask, labels, batch=250):
    model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(labels), batch):
            logits = model(input_ids=ids[i:i + batch], attention_mask=mask[i:i + batch]).logits
            total_loss += torch.nn.functional.cross_entropy(logits, labels[i:i + batch], reduction="sum").item()
            correct += (logits.argmax(-1) == labels[i:i + batch]).sum().item()
    return total_loss / len(labels), correct / len(labels)


def finetune(args):
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    tokenizer = BertTokenizerFast.from_pretrained(args.checkpoint)
    train_texts, train_labels, names = read_labelled(args.train)
    test_texts, test_labels, _ = read_labelled(args.test)
    train_ids, train_mask = encode(tokenizer, train_texts, args.seq_len)
    test_ids, test_mask = encode(tokenizer, test_texts, args.seq_len)
    model = BertForSequenceClassification.from_pretrained(args.checkpoint, num_labels=len(names))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.rate, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, cosine_with_warmup(args.steps, 0.1))
    labels = torch.tensor(train_labels)
    started = time.time()
    for _ in range(args.steps):
        model.train()
        rows = torch.tensor([rng.randrange(len(train_labels)) for _ in range(args.batch)])
        loss = model(input_ids=train_ids[rows], attention_mask=train_mask[rows], labels=labels[rows]).loss
        loss.backward()
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
    held_out_loss, accuracy = evaluate(model, test_ids, test_mask, torch.tensor(test_labels))
    majority = max(test_labels.count(label) for label in set(test_labels)) / len(test_labels)
    print(json.dumps({"majority_accuracy": majority, "rate": args.rate, "seed": args.seed, "steps": args.steps, "batch": args.batch,
                      "seq_len": args.seq_len, "held_out_loss": held_out_loss, "accuracy": accuracy,
                      "chance_loss": math.log(len(names)), "seconds": time.time() - started}))


# Two-sided 95% t quantiles by degrees of freedom (the standard table): the seeds are few, and scipy is not a pin.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


def paired_interval(differences):
    """Mean of the per-seed differences and its 95% t-interval (None with fewer than two seeds)."""
    n = len(differences)
    mean = sum(differences) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    half = T95.get(n - 1, 1.96) * sd / math.sqrt(n)
    return mean, (mean - half, mean + half)


def compare_metric(mine, others, metric, lower_is_better):
    """The chosen rate against the better neighbour on one metric, paired by seed: the difference (chosen less
    neighbour) with its 95% t-interval, and whether the chosen lies within the noise of it or beyond it."""
    sign = 1 if lower_is_better else -1
    better = min(others, key=lambda r: sign * r["mean_" + metric])
    common = [s for s in mine["seeds"] if s in better["seeds"]]
    value = lambda r, s: r[metric][r["seeds"].index(s)]
    diff, ci = paired_interval([value(mine, s) - value(better, s) for s in common])
    # Within the noise: the chosen is no worse, or the interval of how much worse it is reaches 0; None: worse on
    # one seed, with no interval to tell.
    within = True if sign * diff <= 0 else None if ci is None else min(sign * ci[0], sign * ci[1]) <= 0
    return {"better_neighbour": better["rate"], "seeds_compared": len(common), "difference": diff,
            "difference_ci": ci, "chosen_within_noise": within}


def summarize(search, runs):
    """Per rate: its seeds' held-out loss and accuracy, and whether it learned more than the label prior; the
    chosen rate against the better neighbour on each metric, by seed."""
    by_rate = {}
    for run in runs:
        by_rate.setdefault(run["rate"], {})[run["seed"]] = run
    chosen = min(by_rate, key=lambda r: abs(math.log(r / search["learning_rate"])))
    majority = runs[0]["majority_accuracy"]
    prior_loss = -majority * math.log(majority) - (1 - majority) * math.log(1 - majority)  # two labels
    rates = []
    for rate in sorted(by_rate):
        seeds = by_rate[rate]
        r = {"rate": rate, "chosen": rate == chosen, "seeds": sorted(seeds),
             "held_out_loss": [seeds[s]["held_out_loss"] for s in sorted(seeds)],
             "accuracy": [seeds[s]["accuracy"] for s in sorted(seeds)]}
        r["mean_held_out_loss"] = sum(r["held_out_loss"]) / len(r["held_out_loss"])
        r["mean_accuracy"] = sum(r["accuracy"]) / len(r["accuracy"])
        # Every seed predicts the majority label: the model learned the label frequencies and nothing else.
        r["at_label_prior"] = all(abs(a - majority) < 1e-9 for a in r["accuracy"])
        rates.append(r)
    mine = next(r for r in rates if r["chosen"])
    others = [r for r in rates if not r["chosen"]]
    return {"rates": rates, "majority_accuracy": majority, "label_prior_loss": prior_loss,
            "held_out_loss": compare_metric(mine, others, "held_out_loss", True),
            "accuracy": compare_metric(mine, others, "accuracy", False)}


def describe_search(search):
    """What the search chose and how far its rates had learned, from the table JSON's native backend."""
    horizon, wanted = search["lr_horizon_steps"], search["lr_horizon_wanted"]
    words = [f"It chose batch {search['batch_size']} and rate {search['learning_rate']:.1e}, ranked after {horizon} "
             f"steps" + (f" (lengthened past {wanted}: the first horizon had not separated the rates)" if horizon > wanted else "")]
    held_out = search.get("learning_rate_held_out_accuracy")
    if held_out is not None:
        words.append("the rates were scored on held-out rows of the training CSV (10%, never trained on); the chosen "
                     f"rate's accuracy there was {100 * held_out:.1f}%")
    if search.get("learning_rate_learned_share") is not None:
        loss = "held-out loss" if held_out is not None else "training loss"
        words.append(f"the chosen rate's {loss} then lay {100 * search['learning_rate_learned_share']:.1f}% "
                     "below the untrained loss (the labels' prior) "
                     + ("(separated)" if search["learning_rates_separated"] else "(not separated yet)"))
    if search.get("learning_rate_edge"):
        words.append(f"it was the {'largest' if search['learning_rate_edge'] == 'above' else 'smallest'} rate tried")
    if search.get("learning_rate_tie_with"):
        words.append(f"a tie with {search['learning_rate_tie_with']:.1e} within the seed spread")
    return "; ".join(words) + "."


def describe_ci(ci, scale=1.0, digits=4):
    return "n/a" if ci is None else f"[{ci[0] * scale:+.{digits}f}, {ci[1] * scale:+.{digits}f}]"


def holds_up(summary):
    """The issue's test, read so that it cannot mislead: within the noise of the better neighbour on held-out loss
    or accuracy, and not a run that learned only the label frequencies (whose loss sits at the prior's, which an
    overconfident model that did learn can score above)."""
    mine = next(r for r in summary["rates"] if r["chosen"])
    within = any(summary[m]["chosen_within_noise"] for m in ("held_out_loss", "accuracy"))
    return within and not mine["at_label_prior"]


def report(args):
    with open(args.search) as f:
        search = json.load(f)
    with open(args.pretrain) as f:
        pretrained = json.load(f)
    with open(args.runs) as f:
        runs = [json.loads(line) for line in f if line.strip()]
    summary = summarize(search, runs)
    summary["holds_up"] = holds_up(summary)
    record = {"schema_version": 1, "made": args.made, "machine": args.machine, "search": search,
              "pretrain": pretrained, "runs": runs, **summary}
    with open(args.out + ".json", "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    steps = runs[0]["steps"]
    lines = [
        "# A pretrained start: does the chosen fine-tuning rate hold up 10x longer?", "",
        f"Made by `scripts/pretrained-check` on {args.made}, {args.machine}. Every figure here is a loss or an accuracy "
        "(no timing).", "",
        f"1. **Pretrained checkpoint**: a BERT of 2 layers, hidden 128, BERT's uncased WordPiece vocabulary "
        f"(30,522), trained with masked-LM on ../shared/data's corpus (sotu, moby-dick) for {pretrained['steps']} "
        f"steps of 32 x 128 tokens (seed {pretrained['seed']}; final masked-LM loss {pretrained['final_loss']:.2f}), "
        "saved with save_pretrained (`tools/pretrained_check.py pretrain`).",
        f"2. **tune's search**: `{search['command']}`. {describe_search(search)}",
        f"3. **10x longer**: the chosen rate and its x3 and /3 neighbours, each fine-tuned {steps} steps "
        f"(10 x {search['lr_horizon_steps']}) at batch {search['batch_size']} from seeds {', '.join(map(str, summary['rates'][0]['seeds']))} "
        "with transformers (`tools/pretrained_check.py finetune`: tune's optimizer and schedule), then scored on the "
        f"1,000 held-out rows of fine_foods_test.csv (chance: loss ln 2 = 0.693; always guessing the majority label: "
        f"accuracy {runs[0]['majority_accuracy']:.3f}).", "",
        "| rate | held-out loss (per seed) | mean | accuracy (per seed) | mean |",
        "| --- | --- | --- | --- | --- |"]
    for r in summary["rates"]:
        mark = " (chosen)" if r["chosen"] else ""
        lines.append(f"| {r['rate']:.1e}{mark} | {', '.join(f'{x:.4f}' for x in r['held_out_loss'])} | "
                     f"{r['mean_held_out_loss']:.4f} | {', '.join(f'{x:.3f}' for x in r['accuracy'])} | "
                     f"{r['mean_accuracy']:.3f} |")
    lines += ["", "The chosen rate against the better of its neighbours on each metric, paired by seed "
              "(chosen less neighbour, 95% t-interval):", ""]
    for metric, unit, scale, digits in (("held_out_loss", "", 1, 4), ("accuracy", " points", 100, 1)):
        m = summary[metric]
        verdict = {True: "within the noise of it or better", False: "worse beyond the noise",
                   None: "worse on one seed (no interval)"}[m["chosen_within_noise"]]
        lines.append(f"- {metric.replace('_', '-')}: better neighbour {m['better_neighbour']:.1e}, "
                     f"{scale * m['difference']:+.{digits}f}{unit} (CI {describe_ci(m['difference_ci'], scale, digits)}) over "
                     f"{m['seeds_compared']} seeds: **{verdict}**.")
    collapsed = [r for r in summary["rates"] if r["at_label_prior"]]
    if collapsed:
        lines += ["", "At " + ", ".join(f"{r['rate']:.1e}" for r in collapsed) + " every seed predicts the majority "
                  f"label (accuracy {summary['majority_accuracy']:.3f}, held-out loss at the label prior's "
                  f"{summary['label_prior_loss']:.3f}): those runs learned the label frequencies and nothing of the "
                  "text, so a held-out loss near the prior's is no sign of a good rate there."]
    lines += ["", "**Verdict: the chosen rate " + ("holds up" if holds_up(summary) else "does not hold up") +
              " 10x longer** (within the noise of the better neighbour on held-out loss or accuracy, and not a run "
              "that learned only the label frequencies).", ""]
    if args.history and os.path.exists(args.history):
        with open(args.history) as f:
            lines += ["## Earlier runs of this check", "", f.read().strip(), ""]
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("pretrain")
    p.add_argument("out")
    p.add_argument("--vocab", required=True)
    p.add_argument("--corpus", nargs="+", required=True)
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    f = commands.add_parser("finetune")
    f.add_argument("checkpoint")
    f.add_argument("--train", required=True)
    f.add_argument("--test", required=True)
    f.add_argument("--rate", type=float, required=True)
    f.add_argument("--batch", type=int, required=True)
    f.add_argument("--steps", type=int, required=True)
    f.add_argument("--seq-len", type=int, default=128)
    f.add_argument("--seed", type=int, default=0)
    r = commands.add_parser("report")
    r.add_argument("--search", required=True, help="JSON: command, batch_size, learning_rate, lr_horizon_steps, cell")
    r.add_argument("--pretrain", required=True)
    r.add_argument("--runs", required=True, help="JSON lines of finetune")
    r.add_argument("--made", required=True)
    r.add_argument("--machine", required=True)
    r.add_argument("--out", required=True, help="writes OUT.md and OUT.json")
    r.add_argument("--history", help="markdown appended as the earlier runs of the check")
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ.get("TUNE_THREADS", "2")))
    {"pretrain": pretrain, "finetune": finetune, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
