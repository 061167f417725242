"""Bug: with --fp16 on by default the language model's soft outputs are float16, but the n-gram filter built by a helper with torch.eye stays float32 and F.conv2d refuses the mix.

family: precision
category: configuration
expected: RuntimeError
message: expected scalar type Half but found Float
source: https://github.com/Yu-Fangxu/COLD-Attack/issues/20
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def ngram_filter(n):
    return torch.eye(n).unsqueeze(0).unsqueeze(0)  # cause: float32 filter


def bleu_like_loss(probs, ngram=2):
    out = probs.unsqueeze(1)
    eye_filter = ngram_filter(ngram)
    term = F.conv2d(out, eye_filter) / ngram  # bug: float16 probabilities, float32 filter
    return -term.mean()


def decode_step(lm, tokens):
    logits = lm(tokens)
    return logits.softmax(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp16", type=int, default=1)
    parser.add_argument("--vocab", type=int, default=20)
    parser.add_argument("--length", type=int, default=6)
    args = parser.parse_args()
    lm = nn.Sequential(nn.Embedding(args.vocab, 16), nn.Linear(16, args.vocab))
    if args.fp16:
        lm = lm.half()
    tokens = torch.randint(0, args.vocab, (2, args.length))
    probs = decode_step(lm, tokens)
    print(bleu_like_loss(probs).item())


if __name__ == "__main__":
    main()
