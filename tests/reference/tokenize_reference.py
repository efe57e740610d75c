#!/usr/bin/env python3
# Reference token ids for tests/test_tokenizers.cpp: Hugging Face tokenizers/transformers and the python
# sentencepiece package encode the texts of a JSON list; prints one JSON list of id lists (no special tokens).
"""Usage:
  tokenize_reference.py wordpiece VOCAB_TXT LOWERCASE(0|1) TEXTS_JSON
  tokenize_reference.py bpe FOLDER TEXTS_JSON   (transformers GPT2TokenizerFast from vocab.json, merges.txt)
  tokenize_reference.py roberta FOLDER TEXTS_JSON   (transformers RobertaTokenizerFast, same files)
  tokenize_reference.py spm-train CORPUS_TXT VOCAB_SIZE SEED OUT_MODEL
  tokenize_reference.py spm MODEL TEXTS_JSON        (T5: sentencepiece ids as they are)
  tokenize_reference.py xlmr MODEL TEXTS_JSON       (transformers XLMRobertaTokenizer from the model)
  tokenize_reference.py json TOKENIZER_JSON TEXTS_JSON      (HF tokenizers' Tokenizer.from_file)
  tokenize_reference.py save-json KIND SOURCE OUT_FOLDER    (writes OUT_FOLDER/tokenizer.json as transformers' fast
      tokenizer saves it; KIND: bert-uncased (SOURCE: vocab.txt), gpt2 or roberta (SOURCE: folder with vocab.json and
      merges.txt), t5 (SOURCE: spiece.model; spiece.model is copied beside it) or xlmr (SOURCE: sentencepiece.bpe.model))
SentencePiece encodes line by line (as spm_encode does, and our tokenizer): on a whole multi-line text its
float Viterbi scores grow large enough to break near-ties differently.
"""
import json
import os
import shutil
import sys
import tempfile


def read_texts(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def wordpiece(vocab, lowercase, texts_path):
    from tokenizers import BertWordPieceTokenizer
    tok = BertWordPieceTokenizer(vocab, lowercase=lowercase == "1")
    return [e.ids for e in tok.encode_batch(read_texts(texts_path), add_special_tokens=False)]


def bpe(folder, texts_path):
    from transformers import GPT2TokenizerFast
    tok = GPT2TokenizerFast.from_pretrained(folder)  # a local folder: no download
    return [tok.encode(t, add_special_tokens=False) for t in read_texts(texts_path)]


def roberta(folder, texts_path):
    from transformers import RobertaTokenizerFast
    tok = RobertaTokenizerFast.from_pretrained(folder)
    return [tok.encode(t, add_special_tokens=False) for t in read_texts(texts_path)]


def spm_train(corpus, vocab_size, seed, out_model):
    import sentencepiece as spm
    spm.set_random_generator_seed(int(seed))
    prefix = out_model[: -len(".model")] if out_model.endswith(".model") else out_model
    spm.SentencePieceTrainer.train(input=corpus, model_prefix=prefix, vocab_size=int(vocab_size),
                                   num_threads=1, minloglevel=2)
    if prefix + ".model" != out_model:
        shutil.move(prefix + ".model", out_model)
    return {"model": out_model}


def by_lines(encode, text):
    return [i for line in text.split("\n") if line for i in encode(line)]


def spm_ids(model, texts_path):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=model)
    return [by_lines(sp.encode, t) for t in read_texts(texts_path)]


def xlmr_ids(model, texts_path):
    # transformers converts the .model itself (needs protobuf); the folder name is what it loads from.
    from transformers import XLMRobertaTokenizer
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(model, os.path.join(folder, "sentencepiece.bpe.model"))
        tok = XLMRobertaTokenizer.from_pretrained(folder)
        encode = lambda line: tok.encode(line, add_special_tokens=False)
        return [by_lines(encode, t) for t in read_texts(texts_path)]


def json_ids(tokenizer_json, texts_path):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(tokenizer_json)
    return [e.ids for e in tok.encode_batch(read_texts(texts_path), add_special_tokens=False)]


def from_sentencepiece(cls, model, file_name):
    # transformers converts a SentencePiece model to tokenizer.json only in from_pretrained (vocab_file= alone
    # gives an empty Unigram model in transformers 5); the folder name is what it loads from.
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(model, os.path.join(folder, file_name))
        return cls.from_pretrained(folder)


def save_json(kind, source, out_folder):
    import transformers
    if kind == "bert-uncased":
        # vocab= (a path): transformers 5 ignores vocab_file= here and builds a 5-token vocabulary of specials
        tok = transformers.BertTokenizerFast(vocab=source, do_lower_case=True)
    elif kind == "gpt2":
        tok = transformers.GPT2TokenizerFast.from_pretrained(source)
    elif kind == "roberta":
        tok = transformers.RobertaTokenizerFast.from_pretrained(source)
    elif kind == "t5":
        tok = from_sentencepiece(transformers.T5TokenizerFast, source, "spiece.model")
    elif kind == "xlmr":
        tok = from_sentencepiece(transformers.XLMRobertaTokenizerFast, source, "sentencepiece.bpe.model")
    else:
        sys.exit("unknown kind " + kind)
    os.makedirs(out_folder, exist_ok=True)
    tok.backend_tokenizer.save(os.path.join(out_folder, "tokenizer.json"))
    if kind == "t5":  # the slow tokenizer's file beside it, as save_pretrained writes it
        shutil.copy(source, os.path.join(out_folder, "spiece.model"))
    return {"folder": out_folder}


COMMANDS = {"wordpiece": wordpiece, "bpe": bpe, "roberta": roberta, "spm-train": spm_train, "spm": spm_ids, "xlmr": xlmr_ids,
            "json": json_ids, "save-json": save_json}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    json.dump(COMMANDS[sys.argv[1]](*sys.argv[2:]), sys.stdout)
